/// One case per rule of the value-argument contract (docs/dialect.md, "Value arguments",
/// dnnc/dialects/dnn/deferred.py): the message says what is wrong and what would be valid.
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=NOMODULE
// NOMODULE-NOT: builtin.module


/// A deferred op waits for values: some argument must be marked.
// CHECK: 'dnn.deferred' onnx.Reshape waits for argument values, but no argument is marked dnn.value_arg
func.func @negative_deferred_without_value_arg(%x: tensor<2x6xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %y = dnn.deferred "onnx.Reshape"(%x, %s) {opset = 17 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  func.return %y : tensor<?x?xf32>
}

// -----

/// A value argument that nothing waits for would specialize for nothing.
// CHECK: dnn.value_arg on argument 1, but no dnn.deferred op waits
func.func @negative_value_arg_without_deferred(%x: tensor<2x6xf32>, %s: tensor<2xi64> {dnn.value_arg}) -> tensor<2x6xf32> {
  func.return %x : tensor<2x6xf32>
}

// -----

/// A value becomes a constant of its argument's type, and the deferred ops convert on static
/// operands: every argument is static.
// CHECK: argument 0 is of type tensor<?x6xf32>: a function with dnn.value_arg arguments has static arguments only
func.func @negative_dynamic_argument(%x: tensor<?x6xf32>, %s: tensor<2xi64> {dnn.value_arg}) -> tensor<*xf32> {
  %y = dnn.deferred "onnx.Reshape"(%x, %s) {opset = 17 : i64} : (tensor<?x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

/// dnn.value_arg is a unit attribute.
// CHECK: argument 1: dnn.value_arg is a unit attribute
func.func @negative_value_arg_not_unit(%x: tensor<2x6xf32>, %s: tensor<2xi64> {dnn.value_arg = 1 : i64}) -> tensor<*xf32> {
  %y = dnn.deferred "onnx.Reshape"(%x, %s) {opset = 17 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

/// Value arguments and symbolic sizes do not mix.
// CHECK: dnn.value_arg and dnn.symbols do not mix
func.func @negative_with_symbols(%x: tensor<2x6xf32>, %s: tensor<2xi64> {dnn.value_arg}) -> tensor<*xf32> attributes {dnn.symbols = []} {
  %y = dnn.deferred "onnx.Reshape"(%x, %s) {opset = 17 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

/// A dnn op on a deferred result of unknown shape would keep a type that conversion changes.
// CHECK: 'dnn.eltwise' reads a dnn.deferred result of type tensor<?x?xf32>: only deferred ops and the return read one that is not static
func.func @negative_dynamic_result_read_by_dnn_op(%x: tensor<2x6xf32>, %s: tensor<2xi64> {dnn.value_arg}) -> tensor<?x?xf32> {
  %y = dnn.deferred "onnx.Reshape"(%x, %s) {opset = 17 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %z = dnn.eltwise relu %y : tensor<?x?xf32>
  func.return %z : tensor<?x?xf32>
}

// -----

/// The source op names its frontend and its op type.
// CHECK: source_op 'Reshape' must be <frontend>.<op type> (onnx.Reshape)
func.func @negative_source_op_without_frontend(%x: tensor<2x6xf32>, %s: tensor<2xi64> {dnn.value_arg}) -> tensor<*xf32> {
  %y = dnn.deferred "Reshape"(%x, %s) {opset = 17 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

/// Absent inputs are positions among the source op's inputs, ascending.
// CHECK: absent_inputs must be ascending distinct i64 positions below 3 (the operands and the absent inputs), got [3]
func.func @negative_absent_input_out_of_range(%x: tensor<2x6xf32>, %s: tensor<2xf32> {dnn.value_arg}) -> tensor<*xf32> {
  %y = dnn.deferred "onnx.Resize"(%x, %s) {opset = 17 : i64, absent_inputs = array<i64: 3>} : (tensor<2x6xf32>, tensor<2xf32>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

/// A source attribute has a form the frontend can give back.
// CHECK: source attribute 'mode' is none of an i64 or f32 number, a string, an array<i64>/array<f32>, an array of strings or a dense tensor
func.func @negative_source_attribute_kind(%x: tensor<2x6xf32>, %s: tensor<2xi64> {dnn.value_arg}) -> tensor<*xf32> {
  %y = dnn.deferred "onnx.Reshape"(%x, %s) {opset = 17 : i64, source_attributes = {mode = true}} : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  func.return %y : tensor<*xf32>
}

// -----

/// Element types are dnn's.
// CHECK: element type f64 is none of dnn's
func.func @negative_element_type(%x: tensor<2x6xf64>, %s: tensor<2xi64> {dnn.value_arg}) -> tensor<*xf64> {
  %y = dnn.deferred "onnx.Reshape"(%x, %s) {opset = 17 : i64} : (tensor<2x6xf64>, tensor<2xi64>) -> tensor<*xf64>
  func.return %y : tensor<*xf64>
}
