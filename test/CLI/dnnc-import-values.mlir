/// dnnc-import of ONNX models whose graph inputs' *values* give an operand dnn needs at
/// compile time (docs/dialect.md, "Value arguments"): the node is kept as dnn.deferred, the
/// inputs it waits for are marked dnn.value_arg. The models come from
/// dnnc_testing/value_models.py.

// RUN: %python -m dnnc_testing.value_models %t

/// Reshape to an input's values: the Reshape waits, and so does the Relu on its result,
/// whose shape only the values give; x is data, not a value argument.
// RUN: dnnc-import %t.reshape_relu.onnx | filecheck %s --check-prefix=RESHAPE
// RESHAPE-LABEL: func.func @reshape_relu(%x: tensor<2x6xf32>, %shape: tensor<2xi64> {dnn.value_arg}) -> (tensor<*xf32> {dnn.name = "y"})
// RESHAPE-NEXT:    %r = dnn.deferred "onnx.Reshape"(%x, %shape) {opset = 17 : i64} : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// RESHAPE-NEXT:    %y = dnn.deferred "onnx.Relu"(%r) {opset = 17 : i64} : (tensor<?x?xf32>) -> tensor<*xf32>
// RESHAPE-NEXT:    func.return %y

/// The node's attributes are kept as the model gave them; two results.
// RUN: dnnc-import %t.top_k.onnx | filecheck %s --check-prefix=TOPK
// TOPK: %values, %indices = dnn.deferred "onnx.TopK"(%x, %k) {opset = 17 : i64, source_attributes = {axis = 1 : i64}} : (tensor<3x5xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)

/// Resize(x, "", scales): the roi left out is an absent input, by position.
// RUN: dnnc-import %t.resize_scales.onnx | filecheck %s --check-prefix=RESIZE
// RESIZE: dnn.deferred "onnx.Resize"(%x, %scales) {opset = 17 : i64, source_attributes = {mode = "nearest"}, absent_inputs = array<i64: 1>}

/// Shape reads no values: the second Reshape waits for `shape` through it, not for x or w.
// RUN: dnnc-import %t.shape_of_reshape.onnx | filecheck %s --check-prefix=SHAPE
// SHAPE-LABEL: func.func @shape_of_reshape(%x: tensor<2x6xf32>, %shape: tensor<2xi64> {dnn.value_arg}, %w: tensor<12xf32>)
// SHAPE:         %s = dnn.deferred "onnx.Shape"(%y) {opset = 17 : i64} : (tensor<*xf32>) -> tensor<2xi64>
// SHAPE-NEXT:    %z = dnn.deferred "onnx.Reshape"(%w, %s)

/// CumSum keeps its input's shape: its result is static, so the Relu on it is an ordinary
/// dnn op.
// RUN: dnnc-import %t.cumsum_axis.onnx | filecheck %s --check-prefix=CUMSUM
// CUMSUM:      %c = dnn.deferred "onnx.CumSum"(%x, %axis) {opset = 17 : i64} : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
// CUMSUM-NEXT: %y = dnn.eltwise relu %c : tensor<2x3xf32>

/// The printed IR parses back unchanged.
// RUN: dnnc-import %t.reshape_relu.onnx | dnnc-opt | filecheck %s --check-prefix=RESHAPE
