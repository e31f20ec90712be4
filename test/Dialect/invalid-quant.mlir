/// One case per verifier rule of the quantization ops: the message says what is wrong and
/// what would be valid. The second RUN checks that no case verifies.
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=NOMODULE
// NOMODULE-NOT: builtin.module

/// A quantized value is 8-bit: oneDNN's int8 kernels take i8 and ui8.
// CHECK: result has element type i32, expected one of i8, ui8
func.func @negative_quantize_to_i32(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xi32> {
  %q = dnn.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xi32>
  func.return %q : tensor<4xi32>
}

// -----

/// The real side and the scale are f32.
// CHECK: the real side and the scale must be f32, got f32 and f16
func.func @negative_quantize_f16_scale(%x: tensor<4xf32>, %s: tensor<f16>, %z: tensor<ui8>) -> tensor<4xui8> {
  %q = dnn.quantize %x, %s, %z : (tensor<4xf32>, tensor<f16>, tensor<ui8>) -> tensor<4xui8>
  func.return %q : tensor<4xui8>
}

// -----

/// The zero point has the quantized side's type.
// CHECK: zero_point has element type i8, expected the result element type ui8 (or i32, as oneDNN takes it)
func.func @negative_quantize_zero_point_type(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<4xui8> {
  %q = "dnn.quantize"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xui8>
  func.return %q : tensor<4xui8>
}

// -----

/// A rank-1 scale without an axis is ambiguous: per-tensor scales have rank 0.
// CHECK: a per-tensor scale has rank 0, got 4 (give an axis for per-axis quantization)
func.func @negative_dequantize_vector_without_axis(%q: tensor<4xi8>, %s: tensor<4xf32>, %z: tensor<4xi8>) -> tensor<4xf32> {
  %d = dnn.dequantize %q, %s, %z : (tensor<4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

/// Scale and zero point come in pairs of one shape.
// CHECK: scale 3 and zero_point scalar must have one shape
func.func @negative_dequantize_pair_shapes(%q: tensor<2x3xi8>, %s: tensor<3xf32>, %z: tensor<i8>) -> tensor<2x3xf32> {
  %d = dnn.dequantize %q, %s, %z {axis = 1 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<i8>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}

// -----

/// A per-axis scale has one entry per index of its axis.
// CHECK: a per-axis scale has shape [2] (src dimension 0), got 3
func.func @negative_dequantize_axis_size(%q: tensor<2x3xi8>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3xf32> {
  %d = dnn.dequantize %q, %s, %z {axis = 0 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}

// -----

/// The axis names a dimension of src.
// CHECK: axis 2 is out of range for rank 2
func.func @negative_dequantize_axis_range(%q: tensor<2x3xi8>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3xf32> {
  %d = dnn.dequantize %q, %s, %z {axis = 2 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  func.return %d : tensor<2x3xf32>
}

// -----

/// Dequantizing reads integers.
// CHECK: src has element type f32, expected one of i8, ui8, i32
func.func @negative_dequantize_float(%q: tensor<4xf32>, %s: tensor<f32>, %z: tensor<f32>) -> tensor<4xf32> {
  %d = dnn.dequantize %q, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

/// The result has src's shape.
// CHECK: result shape 5 does not match the inferred shape 4
func.func @negative_dequantize_shape(%q: tensor<4xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<5xf32> {
  %d = dnn.dequantize %q, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<5xf32>
  func.return %d : tensor<5xf32>
}

// -----

/// Only dnn.reorder changes a layout.
// CHECK: result layout nchw must equal the src layout nChw16c
func.func @negative_quantize_layout(%x: tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x16x2x2xui8> {
  %q = dnn.quantize %x, %s, %z : (tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>, tensor<f32>, tensor<ui8>) -> tensor<1x16x2x2xui8>
  func.return %q : tensor<1x16x2x2xui8>
}

// -----

/// dynamic_quantize quantizes f32 to ui8 with a scalar scale and zero point.
// CHECK: zero_point must have element type ui8, got i8
func.func @negative_dynamic_quantize_types(%x: tensor<4xf32>) -> tensor<4xui8> {
  %y, %s, %z = dnn.dynamic_quantize %x : (tensor<4xf32>) -> (tensor<4xui8>, tensor<f32>, tensor<i8>)
  func.return %y : tensor<4xui8>
}

// -----

// CHECK: scale must be a plain rank-0 tensor
func.func @negative_dynamic_quantize_scale_rank(%x: tensor<4xf32>) -> tensor<4xui8> {
  %y, %s, %z = dnn.dynamic_quantize %x : (tensor<4xf32>) -> (tensor<4xui8>, tensor<1xf32>, tensor<ui8>)
  func.return %y : tensor<4xui8>
}

// -----

/// An int8 convolution reads s8 weights (oneDNN's int8 weights type).
// CHECK: src and result must be i8 or ui8 and wei i8, got ui8, ui8 and ui8
func.func @negative_qconv2d_u8_weights(%x: tensor<1x4x3x3xui8>, %w: tensor<8x4x1x1xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x8x3x3xui8> {
  %y = dnn.qconv2d %x, %w, %s, %z, %s, %s, %z : (tensor<1x4x3x3xui8>, tensor<8x4x1x1xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x3x3xui8>
  func.return %y : tensor<1x8x3x3xui8>
}

// -----

/// The weights scale is per tensor or one per output channel.
// CHECK: wei_scale must be f32 of rank 0 (per tensor) or [8] (one per output channel)
func.func @negative_qconv2d_weights_scale_per_input_channel(%x: tensor<1x4x3x3xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<f32>, %ws: tensor<4xf32>, %z: tensor<ui8>) -> tensor<1x8x3x3xui8> {
  %y = dnn.qconv2d %x, %w, %s, %z, %ws, %s, %z : (tensor<1x4x3x3xui8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<ui8>, tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x3x3xui8>
  func.return %y : tensor<1x8x3x3xui8>
}

// -----

/// A zero point has its side's type (or i32) and rank 0.
// CHECK: dst_zero_point must be a rank-0 i8 (or i32) tensor
func.func @negative_qconv2d_dst_zero_point_type(%x: tensor<1x4x3x3xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x8x3x3xi8> {
  %y = dnn.qconv2d %x, %w, %s, %z, %s, %s, %z : (tensor<1x4x3x3xui8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x3x3xi8>
  func.return %y : tensor<1x8x3x3xi8>
}

// -----

/// Post-ops are eltwise: a binary one would need an argument in real units.
// CHECK: post-ops must be eltwise
func.func @negative_qconv2d_binary_post_op(%x: tensor<1x4x3x3xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x8x3x3xui8> {
  %y = dnn.qconv2d %x, %w, %s, %z, %s, %s, %z {post_ops = [#dnn.binary<add>]} : (tensor<1x4x3x3xui8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x3x3xui8>
  func.return %y : tensor<1x8x3x3xui8>
}

// -----

/// The result has conv2d's shape.
// CHECK: result shape 1x8x2x2 does not match the inferred shape 1x8x3x3
func.func @negative_qconv2d_shape(%x: tensor<1x4x3x3xui8>, %w: tensor<8x4x1x1xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<1x8x2x2xui8> {
  %y = dnn.qconv2d %x, %w, %s, %z, %s, %s, %z : (tensor<1x4x3x3xui8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x2x2xui8>
  func.return %y : tensor<1x8x2x2xui8>
}

// -----

/// An int8 matmul with a dst scale writes an 8-bit result.
// CHECK: src must be i8 or ui8, wei i8 and the result i8 or ui8 (quantized), got ui8, i8 and f32
func.func @negative_qmatmul_quantized_f32_result(%x: tensor<4x16xui8>, %w: tensor<16x8xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4x8xf32> {
  %y = dnn.qmatmul %x, %w, %s, %z, %s dst(%s, %z : tensor<f32>, tensor<ui8>) : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

/// The weights scale is per tensor or one per column (N), not per row (K).
// CHECK: wei_scale must be f32 of rank 0 (per tensor) or [8] (one per column)
func.func @negative_qmatmul_weights_scale_per_row(%x: tensor<4x16xui8>, %w: tensor<16x8xi8>, %s: tensor<f32>, %ws: tensor<16xf32>, %z: tensor<ui8>) -> tensor<4x8xf32> {
  %y = dnn.qmatmul %x, %w, %s, %z, %ws : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<16xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

/// The result has matmul's shape.
// CHECK: result shape 4x4 does not match the inferred shape 4x8
func.func @negative_qmatmul_shape(%x: tensor<4x16xui8>, %w: tensor<16x8xi8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4x4xf32> {
  %y = dnn.qmatmul %x, %w, %s, %z, %s : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}
