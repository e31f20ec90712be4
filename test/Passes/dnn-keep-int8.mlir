// RUN: dnnc-opt %s -p dnn-keep-int8 --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-keep-int8 --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// A ResNet stem's max pooling between a dequantize and a quantize of one scale and zero
/// point: the pooling runs on the integers, both reorders go.
// CHECK-LABEL: func.func @max_pool
// CHECK:         %y = dnn.pool max %xq {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x4x8x8xi8>) -> tensor<1x4x4x4xi8>
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     dnn.quantize
// REMARK: remark: [dnn-keep-int8] runs on s8 values
func.func @max_pool(%xq: tensor<1x4x8x8xi8>) -> tensor<1x4x4x4xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %y = dnn.quantize %p, %s, %z : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  func.return %y : tensor<1x4x4x4xi8>
}

// -----

/// Equal constants (not one value) count as equal; a flatten is a reshape; the dequantize
/// stays for its other reader.
// CHECK-LABEL: func.func @reshape_equal_constants
// CHECK:         %x = dnn.dequantize %xq
// CHECK-NEXT:    %y = dnn.reshape %xq : (tensor<1x4x8x8xi8>) -> tensor<1x256xi8>
// CHECK-NEXT:    func.return %y, %x
// REMARK: remark: [dnn-keep-int8] runs on s8 values
func.func @reshape_equal_constants(%xq: tensor<1x4x8x8xi8>) -> (tensor<1x256xi8>, tensor<1x4x8x8xf32>) {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %s2 = dnn.constant dense<0.05> : tensor<f32>
  %z2 = dnn.constant dense<-3> : tensor<i8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %r = dnn.reshape %x : (tensor<1x4x8x8xf32>) -> tensor<1x256xf32>
  %y = dnn.quantize %r, %s2, %z2 : (tensor<1x256xf32>, tensor<f32>, tensor<i8>) -> tensor<1x256xi8>
  func.return %y, %x : tensor<1x256xi8>, tensor<1x4x8x8xf32>
}

// -----

/// A concat of inputs with the result's parameters.
// CHECK-LABEL: func.func @concat_equal
// CHECK:         %y = dnn.concat %aq, %bq {axis = 1 : i64} : (tensor<1x4x8x8xi8>, tensor<1x4x8x8xi8>) -> tensor<1x8x8x8xi8>
// REMARK: remark: [dnn-keep-int8] runs on s8 values
func.func @concat_equal(%aq: tensor<1x4x8x8xi8>, %bq: tensor<1x4x8x8xi8>) -> tensor<1x8x8x8xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %a = dnn.dequantize %aq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %b = dnn.dequantize %bq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %c = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %y = dnn.quantize %c, %s, %z : (tensor<1x8x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x8x8xi8>
  func.return %y : tensor<1x8x8x8xi8>
}

// -----

/// An average without padding: the mean of the integers, rounded once.
// CHECK-LABEL: func.func @average_pool
// CHECK:         %y = dnn.pool avg_include_pad %xq
// REMARK: remark: [dnn-keep-int8] runs on s8 values
func.func @average_pool(%xq: tensor<1x4x8x8xi8>) -> tensor<1x4x4x4xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool avg_include_pad %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %y = dnn.quantize %p, %s, %z : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  func.return %y : tensor<1x4x4x4xi8>
}

// -----

/// Must not fire: the quantize has its own scale (ONNX Runtime's GlobalAveragePool).
// CHECK-LABEL: func.func @negative_max_pool_other_scale
// CHECK:         dnn.pool max %x
// CHECK:         dnn.quantize
// REMARK: remark: [dnn-keep-int8] not kept in int8: the quantize's scale is not the dequantize's
func.func @negative_max_pool_other_scale(%xq: tensor<1x4x8x8xi8>) -> tensor<1x4x4x4xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %s2 = dnn.constant dense<0.1> : tensor<f32>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %y = dnn.quantize %p, %s2, %z : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  func.return %y : tensor<1x4x4x4xi8>
}

// -----

/// Must not fire: one input of the concat has another zero point (ONNX Runtime gives a
/// concat's inputs their own parameters).
// CHECK-LABEL: func.func @negative_concat_other_zero_point
// CHECK:         dnn.concat %a, %b
// REMARK: remark: [dnn-keep-int8] not kept in int8: the quantize's zero point is not the dequantize's
func.func @negative_concat_other_zero_point(%aq: tensor<1x4x8x8xi8>, %bq: tensor<1x4x8x8xi8>) -> tensor<1x8x8x8xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %z2 = dnn.constant dense<4> : tensor<i8>
  %a = dnn.dequantize %aq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %b = dnn.dequantize %bq, %s, %z2 : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %c = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %y = dnn.quantize %c, %s, %z : (tensor<1x8x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x8x8xi8>
  func.return %y : tensor<1x8x8x8xi8>
}

// -----

/// Must not fire: the average counts padding, 0 in the integers but -3 (its zero point) in
/// the dequantized values.
// CHECK-LABEL: func.func @negative_average_counts_padding
// CHECK:         dnn.pool avg_include_pad %x
// REMARK: remark: [dnn-keep-int8] not kept in int8: the average counts padding, which is 0 in the integers, not the zero point
func.func @negative_average_counts_padding(%xq: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool avg_include_pad %x {kernel = array<i64: 3, 3>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = dnn.quantize %p, %s, %z : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  func.return %y : tensor<1x4x8x8xi8>
}

// -----

/// Must not fire: the pooled f32 values are also returned; silent for a quantize of
/// anything else (the last case: no remark after the previous one).
// CHECK-LABEL: func.func @negative_pool_read_twice
// CHECK:         dnn.pool max %x
// REMARK: remark: [dnn-keep-int8] not kept in int8: the dnn.pool's f32 result has another use, which would be lost
// REMARK-NOT: remark: [dnn-keep-int8]
func.func @negative_pool_read_twice(%xq: tensor<1x4x8x8xi8>, %e: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xi8>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xi8>) {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %y = dnn.quantize %p, %s, %z : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  %t = dnn.eltwise tanh %e : tensor<1x4x4x4xf32>
  %u = dnn.quantize %t, %s, %z : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  func.return %y, %p, %u : tensor<1x4x4x4xi8>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xi8>
}
