// RUN: dnnc-opt %s -p dnn-shift-to-u8 --split-input-file | filecheck %s

/// An activation after a removed Relu (zero point -128): u8 with zero point 0, the
/// quantize and both its dequantizes.
// CHECK-LABEL: func.func @after_relu
// CHECK:         %[[Z:.*]] = dnn.constant dense<0> : tensor<ui8>
// CHECK-NEXT:    %q = dnn.quantize %x, %s, %[[Z]] : (tensor<1x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4xui8>
// CHECK-NEXT:    %a = dnn.dequantize %q, %s, %[[Z]] : (tensor<1x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4xf32>
// CHECK-NEXT:    %b = dnn.dequantize %q, %s, %[[Z]] : (tensor<1x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4xf32>
func.func @after_relu(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  %s = dnn.constant dense<0.1> : tensor<f32>
  %z = dnn.constant dense<-128> : tensor<i8>
  %q = dnn.quantize %x, %s, %z : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  %a = dnn.dequantize %q, %s, %z : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
  %b = dnn.dequantize %q, %s, %z : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
  func.return %a, %b : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

/// Another zero point shifts too (a residual and its sum's result keep one type); an i32
/// zero point (oneDNN's type) stays i32, the dequantize's equal constant is replaced.
// CHECK-LABEL: func.func @other_zero_point_i32
// CHECK:         %[[Z:.*]] = dnn.constant dense<135> : tensor<i32>
// CHECK-NEXT:    %q = dnn.quantize %x, %s, %[[Z]] : (tensor<1x4xf32>, tensor<f32>, tensor<i32>) -> tensor<1x4xui8>
// CHECK-NEXT:    %a = dnn.dequantize %q, %s, %[[Z]] :
func.func @other_zero_point_i32(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %s = dnn.constant dense<0.1> : tensor<f32>
  %z = dnn.constant dense<7> : tensor<i32>
  %z2 = dnn.constant dense<7> : tensor<i32>
  %q = dnn.quantize %x, %s, %z : (tensor<1x4xf32>, tensor<f32>, tensor<i32>) -> tensor<1x4xi8>
  %a = dnn.dequantize %q, %s, %z2 : (tensor<1x4xi8>, tensor<f32>, tensor<i32>) -> tensor<1x4xf32>
  func.return %a : tensor<1x4xf32>
}

// -----

/// Must not fire: the s8 values are also returned (the caller expects s8).
// CHECK-LABEL: func.func @negative_returned
// CHECK:         dnn.quantize %x, %s, %z : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
func.func @negative_returned(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xi8>) {
  %s = dnn.constant dense<0.1> : tensor<f32>
  %z = dnn.constant dense<-128> : tensor<i8>
  %q = dnn.quantize %x, %s, %z : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  %a = dnn.dequantize %q, %s, %z : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
  func.return %a, %q : tensor<1x4xf32>, tensor<1x4xi8>
}

// -----

/// Must not fire: the zero point is computed at run time.
// CHECK-LABEL: func.func @negative_zero_point_not_constant
// CHECK:         dnn.quantize %x, %s, %z : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
func.func @negative_zero_point_not_constant(%x: tensor<1x4xf32>, %z: tensor<i8>) -> tensor<1x4xf32> {
  %s = dnn.constant dense<0.1> : tensor<f32>
  %q = dnn.quantize %x, %s, %z : (tensor<1x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4xi8>
  %a = dnn.dequantize %q, %s, %z : (tensor<1x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4xf32>
  func.return %a : tensor<1x4xf32>
}
