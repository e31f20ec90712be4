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

/// A global average with its own scale (ONNX Runtime's GlobalAveragePool): the pooling on
/// the integers, the requantization in its post-ops (no linear for the zero points 0).
// CHECK-LABEL: func.func @global_average_requantized
// CHECK:         %[[S:.*]] = dnn.constant dense<2.500000e-02> : tensor<1x1x1x1xf32>
// CHECK-NEXT:    %y = dnn.pool avg_include_pad %xq post_args(%[[S]] : tensor<1x1x1x1xf32>) {kernel = array<i64: 8, 8>, strides = array<i64: 8, 8>, post_ops = [#dnn.eltwise<linear, 0.05000000074505806>, #dnn.binary<div>, #dnn.eltwise<round>]} : (tensor<1x4x8x8xui8>) -> tensor<1x4x1x1xui8>
// CHECK-NEXT:    func.return %y
// CHECK-NOT:     dnn.quantize
// REMARK: remark: [dnn-keep-int8] runs on u8 values, requantized
func.func @global_average_requantized(%xq: tensor<1x4x8x8xui8>) -> tensor<1x4x1x1xui8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<0> : tensor<ui8>
  %s2 = dnn.constant dense<0.025> : tensor<f32>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool avg_include_pad %x {kernel = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %y = dnn.quantize %p, %s2, %z : (tensor<1x4x1x1xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x1x1xui8>
  func.return %y : tensor<1x4x1x1xui8>
}

// -----

/// A max pooling to other parameters, zero points not 0: subtract the input's zero point,
/// scale, divide, round, add the result's.
// CHECK-LABEL: func.func @max_pool_other_parameters
// CHECK:         dnn.pool max %xq post_args(%{{.*}} : tensor<1x1x1x1xf32>)
// CHECK-SAME:      post_ops = [#dnn.eltwise<linear, 1.0, 3.0>, #dnn.eltwise<linear, 0.05000000074505806>, #dnn.binary<div>, #dnn.eltwise<round>, #dnn.eltwise<linear, 1.0, 5.0>]
// CHECK-NOT:     dnn.quantize
// REMARK: remark: [dnn-keep-int8] runs on s8 values, requantized
func.func @max_pool_other_parameters(%xq: tensor<1x4x8x8xi8>) -> tensor<1x4x4x4xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %s2 = dnn.constant dense<0.1> : tensor<f32>
  %z2 = dnn.constant dense<5> : tensor<i8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %y = dnn.quantize %p, %s2, %z2 : (tensor<1x4x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x4x4xi8>
  func.return %y : tensor<1x4x4x4xi8>
}

// -----

/// Must not fire: the result's scale is known at run time only (the divisor is a post-op
/// argument made at compile time).
// CHECK-LABEL: func.func @negative_requantized_scale_not_constant
// CHECK:         dnn.pool avg_include_pad %x
// CHECK:         dnn.quantize
// REMARK: remark: [dnn-keep-int8] not requantized in the pooling: the result's scale is not a constant
func.func @negative_requantized_scale_not_constant(%xq: tensor<1x4x8x8xui8>, %s2: tensor<f32>) -> tensor<1x4x1x1xui8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool avg_include_pad %x {kernel = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %y = dnn.quantize %p, %s2, %z : (tensor<1x4x1x1xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x1x1xui8>
  func.return %y : tensor<1x4x1x1xui8>
}

// -----

/// Must not fire: u8 in, s8 out (a pooling keeps its element type).
// CHECK-LABEL: func.func @negative_requantized_other_integer_type
// CHECK:         dnn.pool avg_include_pad %x
// CHECK:         dnn.quantize
// REMARK: remark: [dnn-keep-int8] not requantized in the pooling: the input has another integer type than the result
func.func @negative_requantized_other_integer_type(%xq: tensor<1x4x8x8xui8>) -> tensor<1x4x1x1xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<0> : tensor<ui8>
  %s2 = dnn.constant dense<0.025> : tensor<f32>
  %z2 = dnn.constant dense<-128> : tensor<i8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool avg_include_pad %x {kernel = array<i64: 8, 8>, strides = array<i64: 8, 8>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  %y = dnn.quantize %p, %s2, %z2 : (tensor<1x4x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x1x1xi8>
  func.return %y : tensor<1x4x1x1xi8>
}

// -----

/// Must not fire: the average counts padding under the zero point -3, and the result has
/// another scale.
// CHECK-LABEL: func.func @negative_requantized_average_counts_padding
// CHECK:         dnn.pool avg_include_pad %x
// REMARK: remark: [dnn-keep-int8] not requantized in the pooling: the average counts padding, which is 0 in the integers, not the zero point
func.func @negative_requantized_average_counts_padding(%xq: tensor<1x4x8x8xi8>) -> tensor<1x4x8x8xi8> {
  %s = dnn.constant dense<0.05> : tensor<f32>
  %z = dnn.constant dense<-3> : tensor<i8>
  %s2 = dnn.constant dense<0.1> : tensor<f32>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x4x8x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xf32>
  %p = dnn.pool avg_include_pad %x {kernel = array<i64: 3, 3>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = dnn.quantize %p, %s2, %z : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x8x8xi8>
  func.return %y : tensor<1x4x8x8xi8>
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
