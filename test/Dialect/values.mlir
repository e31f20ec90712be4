/// The value-argument contract (docs/dialect.md, "Value arguments"): dnn.deferred keeps an op
/// of the source model until the values of the dnn.value_arg arguments are known; the IR
/// prints and parses back unchanged (invalid-values.mlir: each broken rule).
// RUN: dnnc-opt %s | filecheck %s
// RUN: dnnc-opt %s | dnnc-opt | filecheck %s

// CHECK-LABEL: func.func @pad(%x: tensor<1x3x4x4xf32>, %pads: tensor<8xi64> {dnn.value_arg})
// CHECK:         %y = dnn.deferred "onnx.Pad"(%x, %pads, %v) {opset = 21 : i64, source_attributes = {mode = "reflect"}} : (tensor<1x3x4x4xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x3x?x?xf32>
// CHECK-NEXT:    %z = dnn.deferred "onnx.Relu"(%y) {opset = 21 : i64} : (tensor<1x3x?x?xf32>) -> tensor<*xf32>
func.func @pad(%x: tensor<1x3x4x4xf32>, %pads: tensor<8xi64> {dnn.value_arg}) -> tensor<*xf32> {
  %v = dnn.constant dense<0.0> : tensor<f32>
  %y = dnn.deferred "onnx.Pad"(%x, %pads, %v) {opset = 21 : i64, source_attributes = {mode = "reflect"}} : (tensor<1x3x4x4xf32>, tensor<8xi64>, tensor<f32>) -> tensor<1x3x?x?xf32>
  %z = dnn.deferred "onnx.Relu"(%y) {opset = 21 : i64} : (tensor<1x3x?x?xf32>) -> tensor<*xf32>
  func.return %z : tensor<*xf32>
}

/// Every kind of source attribute: i64, f32, string, arrays of each, a dense tensor; an
/// absent input by position.
// CHECK-LABEL: func.func @attributes
// CHECK:         source_attributes = {i = 2 : i64, f = 5.000000e-01 : f32, s = "linear", ints = array<i64: 1, 2>, floats = array<f32: 1.500000e+00>, strings = ["a", "b"], t = dense<1.000000e+00> : tensor<1xf32>}, absent_inputs = array<i64: 1>
func.func @attributes(%x: tensor<2x3xf32>, %s: tensor<2xf32> {dnn.value_arg}) -> tensor<*xf32> {
  %y = dnn.deferred "onnx.Resize"(%x, %s) {opset = 19 : i64, source_attributes = {i = 2 : i64, f = 0.5 : f32, s = "linear", ints = array<i64: 1, 2>, floats = array<f32: 1.5>, strings = ["a", "b"], t = dense<1.0> : tensor<1xf32>}, absent_inputs = array<i64: 1>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

/// A deferred result that is static is read by any dnn op.
// CHECK-LABEL: func.func @static_result
// CHECK:         dnn.eltwise relu %c
func.func @static_result(%x: tensor<2x3xf32>, %axis: tensor<i32> {dnn.value_arg}) -> tensor<2x3xf32> {
  %c = dnn.deferred "onnx.CumSum"(%x, %axis) {opset = 14 : i64} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  %y = dnn.eltwise relu %c : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
