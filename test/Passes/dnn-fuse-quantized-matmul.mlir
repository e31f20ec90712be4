// RUN: dnnc-opt %s -p 'dnn-fuse-quantized-matmul{vnni=yes round-first=false}' --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p 'dnn-fuse-quantized-matmul{vnni=yes round-first=false}' --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: dnnc-opt %s -p 'dnn-fuse-quantized-matmul{vnni=no round-first=false}' --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=NOVNNI
// RUN: dnnc-opt %s -p 'dnn-fuse-quantized-matmul{vnni=yes}' --split-input-file --remarks 2>&1 | filecheck %s --check-prefix=ROUND

/// ONNX QDQ Gemm: DQ(x), DQ(w per column), DQ(int32 bias) added as a row, Q. One qmatmul
/// with the bias and the result's scale; the bias's dequantize stays for dnn-fold-constants.
// CHECK-LABEL: func.func @qdq_gemm_bias
// CHECK:         %[[B:.*]] = dnn.dequantize %bq, %bs, %bz
// CHECK-NEXT:    %[[Y:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws dst(%ys, %yz : tensor<f32>, tensor<i8>) bias(%[[B]] : tensor<1x8xf32>) : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<8xf32>) -> tensor<4x8xi8>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     dnn.matmul
// REMARK: dnn-fuse-quantized-matmul.mlir:[[# @LINE + 25]]:3: remark: [dnn-fuse-quantized-matmul] fused into one int8 matmul
/// Without VNNI too: a u8 source and 7-bit weights (3) keep vpmaddubsw's s16 pair sums exact.
// NOVNNI: dnn-fuse-quantized-matmul.mlir:[[# @LINE + 23]]:3: remark: [dnn-fuse-quantized-matmul] fused into one int8 matmul
/// The zero point after the rounding (rule 6): the result's zero point -3 moves into the
/// post-ops after the scale (1/0.05 = 20) and the rounding; the op keeps scale 1 and zero
/// point 0. (The remark of @negative_round_first_scale_not_constant comes first.)
// ROUND: remark: [dnn-fuse-quantized-matmul] zero point added before rounding (oneDNN's): the result's scale is not a constant
// ROUND-LABEL: func.func @qdq_gemm_bias
// ROUND:         %[[ONE:.*]] = dnn.constant dense<1.000000e+00> : tensor<f32>
// ROUND-NEXT:    %[[NOUGHT:.*]] = dnn.constant dense<0> : tensor<i8>
// ROUND-NEXT:    %y = dnn.qmatmul %xq, %wq, %xs, %xz, %ws dst(%[[ONE]], %[[NOUGHT]] : tensor<f32>, tensor<i8>) bias(%b : tensor<1x8xf32>) {post_ops = [#dnn.eltwise<linear, 19.99999970197678>, #dnn.eltwise<round>, #dnn.eltwise<linear, 1.0, -3.0>]}
func.func @qdq_gemm_bias(%xq: tensor<4x16xui8>) -> tensor<4x8xi8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %wz = dnn.constant dense<0> : tensor<8xi8>
  %bq = dnn.constant dense<7> : tensor<1x8xi32>
  %bs = dnn.constant dense<0.0002> : tensor<f32>
  %bz = dnn.constant dense<0> : tensor<i32>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<-3> : tensor<i8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz {axis = 1 : i64} : (tensor<16x8xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<16x8xf32>
  %b = dnn.dequantize %bq, %bs, %bz : (tensor<1x8xi32>, tensor<f32>, tensor<i32>) -> tensor<1x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %a = dnn.binary add %b, %m : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = dnn.quantize %a, %ys, %yz : (tensor<4x8xf32>, tensor<f32>, tensor<i8>) -> tensor<4x8xi8>
  func.return %y : tensor<4x8xi8>
}

// -----

/// ONNX Gemm with transB (torch's Linear on 2-D input): the weights [N, K] are read through
/// a transpose and scaled per row of the constant (axis 0: per output column). The i8
/// constant is transposed instead (dnn-fold-constants folds it); the f32 transpose goes.
// CHECK-LABEL: func.func @gemm_trans_b
// CHECK:         %[[T:.*]] = dnn.transpose %wq {permutation = array<i64: 1, 0>} : (tensor<8x16xi8>) -> tensor<16x8xi8>
// CHECK-NEXT:    %[[Y:.*]] = dnn.qmatmul %xq, %[[T]], %xs, %xz, %ws bias(%b : tensor<8xf32>) : (tensor<4x16xi8>, tensor<16x8xi8>, tensor<f32>, tensor<i8>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @gemm_trans_b(%xq: tensor<4x16xi8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<3> : tensor<8x16xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %wz = dnn.constant dense<0> : tensor<8xi8>
  %b = dnn.constant dense<0.5> : tensor<8xf32>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz {axis = 0 : i64} : (tensor<8x16xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x16xf32>
  %t = dnn.transpose %w {permutation = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %t, %b : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}

// -----

/// Transposed weights [N, K] scaled along K (axis 1): per row of the product.
// CHECK-LABEL: func.func @negative_gemm_trans_b_per_row
// CHECK-NOT:     dnn.qmatmul
// REMARK: remark: [dnn-fuse-quantized-matmul] not fused: the weights are quantized per row, not per column (oneDNN scales columns)
func.func @negative_gemm_trans_b_per_row(%xq: tensor<4x16xi8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<3> : tensor<8x16xi8>
  %ws = dnn.constant dense<0.01> : tensor<16xf32>
  %wz = dnn.constant dense<0> : tensor<16xi8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz {axis = 1 : i64} : (tensor<8x16xi8>, tensor<16xf32>, tensor<16xi8>) -> tensor<8x16xf32>
  %t = dnn.transpose %w {permutation = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %t : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}

// -----

/// No quantize after it (an f32 island reads it): the int8 matmul writes f32, the relu a
/// post-op; batched src, per-tensor weights (axis -1 of rank 2 is the column axis too).
// CHECK-LABEL: func.func @f32_result_relu
// CHECK-NEXT:    %ws = dnn.constant
// CHECK:         %[[Y:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws {post_ops = [#dnn.eltwise<relu>]} : (tensor<2x4x16xi8>, tensor<16x8xi8>, tensor<f32>, tensor<i8>, tensor<f32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[S:.*]] = dnn.softmax %[[Y]]
func.func @f32_result_relu(%xq: tensor<2x4x16xi8>) -> tensor<2x4x8xf32> {
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<5> : tensor<i8>
  %wq = dnn.constant dense<-2> : tensor<16x8xi8>
  %wz = dnn.constant dense<0> : tensor<i8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<2x4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
  %r = dnn.eltwise relu %m : tensor<2x4x8xf32>
  %s = dnn.softmax %r {axis = 2 : i64} : tensor<2x4x8xf32>
  func.return %s : tensor<2x4x8xf32>
}

// -----

/// ONNX Runtime's quantize_dynamic: DynamicQuantizeLinear -> MatMulInteger (unit scales)
/// -> Cast -> Mul by x_scale * w_scale -> Add bias. One qmatmul with the run-time product
/// as its src scale; the casts, the mul and the add are gone.
// CHECK-LABEL: func.func @dynamic_matmul_integer
// CHECK:         %[[Q:.*]], %[[XS:.*]], %[[XZ:.*]] = dnn.dynamic_quantize %x
// CHECK-NEXT:    %[[S:.*]] = dnn.binary mul %[[XS]], %ws
// CHECK-NEXT:    %[[Y:.*]] = dnn.qmatmul %[[Q]], %wq, %[[S]], %[[XZ]], %one bias(%b : tensor<8xf32>) : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
// REMARK: remark: [dnn-fuse-quantized-matmul] fused into one int8 matmul
// REMARK: remark: [dnn-fuse-quantized-matmul] the run-time scale of a dynamic quantization folded in
func.func @dynamic_matmul_integer(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %one = dnn.constant dense<1.0> : tensor<f32>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %b = dnn.constant dense<0.5> : tensor<8xf32>
  %xq, %xs, %xz = dnn.dynamic_quantize %x : (tensor<4x16xf32>) -> (tensor<4x16xui8>, tensor<f32>, tensor<ui8>)
  %s = dnn.binary mul %xs, %ws : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %xd = dnn.dequantize %xq, %one, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %wd = dnn.dequantize %wq, %one, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %xd, %wd : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %i = dnn.cast %m : (tensor<4x8xf32>) -> tensor<4x8xi32>
  %f = dnn.cast %i : (tensor<4x8xi32>) -> tensor<4x8xf32>
  %y = dnn.binary mul %f, %s : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %z = dnn.binary add %y, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %z : tensor<4x8xf32>
}

// -----

/// Dynamic with per-column weights: the product x_scale * w_scale[N] is split into the
/// src scale and the per-column weights scale (the product is erased).
// CHECK-LABEL: func.func @dynamic_per_column
// CHECK:         %[[Q:.*]], %[[XS:.*]], %[[XZ:.*]] = dnn.dynamic_quantize %x
// CHECK-NEXT:    %[[Y:.*]] = dnn.qmatmul %[[Q]], %wq, %[[XS]], %[[XZ]], %ws : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @dynamic_per_column(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %one = dnn.constant dense<1.0> : tensor<f32>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %xq, %xs, %xz = dnn.dynamic_quantize %x : (tensor<4x16xf32>) -> (tensor<4x16xui8>, tensor<f32>, tensor<ui8>)
  %s = dnn.binary mul %xs, %ws : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %xd = dnn.dequantize %xq, %one, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %wd = dnn.dequantize %wq, %one, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %xd, %wd : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %i = dnn.cast %m : (tensor<4x8xf32>) -> tensor<4x8xi32>
  %f = dnn.cast %i : (tensor<4x8xi32>) -> tensor<4x8xf32>
  %y = dnn.binary mul %s, %f : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

/// The result's scale is a run-time value (a requantization the graph computes): the
/// quantize stays, the int8 matmul writes f32.
// CHECK-LABEL: func.func @negative_quantize_scale_not_constant
// CHECK:         %[[M:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws : {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT:    dnn.quantize %[[M]], %ys, %yz
// REMARK: remark: [dnn-fuse-quantized-matmul] not fused: the result's scale or zero point is not a constant
func.func @negative_quantize_scale_not_constant(%xq: tensor<4x16xui8>, %ys: tensor<f32>) -> tensor<4x8xui8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = dnn.quantize %m, %ys, %yz : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
  func.return %y : tensor<4x8xui8>
}

// -----

/// The weights [K, N] are scaled per row (axis 0, one per K): oneDNN scales columns.
// CHECK-LABEL: func.func @negative_weights_per_row
// CHECK-NOT:     dnn.qmatmul
// CHECK:         dnn.matmul
// REMARK: remark: [dnn-fuse-quantized-matmul] not fused: the weights are quantized per row, not per column (oneDNN scales columns)
func.func @negative_weights_per_row(%xq: tensor<4x16xui8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<16xf32>
  %wz = dnn.constant dense<0> : tensor<16xi8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz {axis = 0 : i64} : (tensor<16x8xi8>, tensor<16xf32>, tensor<16xi8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}

// -----

/// Two s8 activations (attention's Q K^T): the weights are an activation, read in their
/// layout, with their zero point; the result's quantize is fused too.
// CHECK-LABEL: func.func @activation_weights
// CHECK:         %[[Y:.*]] = dnn.qmatmul %xq, %kq, %s, %z, %s wei_zero_point(%kz : tensor<i8>) dst(%s, %z : tensor<f32>, tensor<i8>) : (tensor<1x2x4x16xi8>, tensor<1x2x16x4xi8>, tensor<f32>, tensor<i8>, tensor<f32>) -> tensor<1x2x4x4xi8>
// CHECK-NEXT:    func.return %[[Y]]
func.func @activation_weights(%xq: tensor<1x2x4x16xi8>, %kq: tensor<1x2x16x4xi8>) -> tensor<1x2x4x4xi8> {
  %s = dnn.constant dense<0.02> : tensor<f32>
  %z = dnn.constant dense<0> : tensor<i8>
  %kz = dnn.constant dense<-9> : tensor<i8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x2x4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x16xf32>
  %k = dnn.dequantize %kq, %s, %kz : (tensor<1x2x16x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x16x4xf32>
  %m = dnn.matmul %x, %k : (tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>) -> tensor<1x2x4x4xf32>
  %y = dnn.quantize %m, %s, %z : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  func.return %y : tensor<1x2x4x4xi8>
}

// -----

/// Two u8 activations (a U8S8 model's attention): oneDNN's int8 weights are s8, so the
/// weights are shifted by -128 exactly (a dequantize with scale 1 and zero point 128, a
/// quantize with scale 1), their zero point with them (128 - 128 = 0).
// CHECK-LABEL: func.func @u8_activation_weights
// CHECK:         %[[ONE:.*]] = dnn.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[HALF:.*]] = dnn.constant dense<128> : tensor<ui8>
// CHECK-NEXT:    %[[NOUGHT:.*]] = dnn.constant dense<0> : tensor<i8>
// CHECK-NEXT:    %[[C:.*]] = dnn.dequantize %kq, %[[ONE]], %[[HALF]] : (tensor<1x2x16x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x16x4xf32>
// CHECK-NEXT:    %[[K:.*]] = dnn.quantize %[[C]], %[[ONE]], %[[NOUGHT]] : (tensor<1x2x16x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x16x4xi8>
// CHECK-NEXT:    %[[KZ:.*]] = dnn.constant dense<0> : tensor<i8>
// CHECK-NEXT:    dnn.qmatmul %xq, %[[K]], %s, %z, %s wei_zero_point(%[[KZ]] : tensor<i8>) : (tensor<1x2x4x16xui8>, tensor<1x2x16x4xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<1x2x4x4xf32>
// REMARK: remark: [dnn-fuse-quantized-matmul] fused into one int8 matmul (its u8 weights shifted to i8)
/// Without VNNI the weights' range is unknown (vpmaddubsw's pair sums could saturate).
// NOVNNI: remark: [dnn-fuse-quantized-matmul] not fused: this CPU has no VNNI and the weights are not a constant in the IR
func.func @u8_activation_weights(%xq: tensor<1x2x4x16xui8>, %kq: tensor<1x2x16x4xui8>) -> tensor<1x2x4x4xf32> {
  %s = dnn.constant dense<0.02> : tensor<f32>
  %z = dnn.constant dense<128> : tensor<ui8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x2x4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x16xf32>
  %k = dnn.dequantize %kq, %s, %z : (tensor<1x2x16x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x16x4xf32>
  %m = dnn.matmul %x, %k : (tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %m : tensor<1x2x4x4xf32>
}

// -----

/// u8 activation weights whose zero point is computed at run time: the shift needs it.
// CHECK-LABEL: func.func @negative_u8_activation_weights_zero_point_not_constant
// CHECK-NOT:     dnn.qmatmul
// REMARK: remark: [dnn-fuse-quantized-matmul] not fused: the weights are u8 with a zero point that is not a constant (to shift to i8)
func.func @negative_u8_activation_weights_zero_point_not_constant(%xq: tensor<1x2x4x16xui8>, %kq: tensor<1x2x16x4xui8>, %kz: tensor<ui8>) -> tensor<1x2x4x4xf32> {
  %s = dnn.constant dense<0.02> : tensor<f32>
  %z = dnn.constant dense<128> : tensor<ui8>
  %x = dnn.dequantize %xq, %s, %z : (tensor<1x2x4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x16xf32>
  %k = dnn.dequantize %kq, %s, %kz : (tensor<1x2x16x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x16x4xf32>
  %m = dnn.matmul %x, %k : (tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %m : tensor<1x2x4x4xf32>
}

// -----

/// The weights have a zero point (asymmetric): not this rule.
// CHECK-LABEL: func.func @negative_weights_zero_point
// CHECK-NOT:     dnn.qmatmul
// REMARK: remark: [dnn-fuse-quantized-matmul] not fused: the weights' zero point is not a constant 0
func.func @negative_weights_zero_point(%xq: tensor<4x16xui8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<2> : tensor<i8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}

// -----

/// The source is quantized per axis: oneDNN takes one src scale.
// CHECK-LABEL: func.func @negative_source_per_axis
// CHECK-NOT:     dnn.qmatmul
// REMARK: remark: [dnn-fuse-quantized-matmul] not fused: the source is quantized per axis
func.func @negative_source_per_axis(%xq: tensor<4x16xui8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<4xf32>
  %xz = dnn.constant dense<0> : tensor<4xui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %x = dnn.dequantize %xq, %xs, %xz {axis = 0 : i64} : (tensor<4x16xui8>, tensor<4xf32>, tensor<4xui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  func.return %m : tensor<4x8xf32>
}

// -----

/// The f32 product is also returned: the bias add and the quantize stay outside (the
/// int8 matmul writes f32 once, both readers read it).
// CHECK-LABEL: func.func @negative_product_read_twice
// CHECK:         %[[M:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws : {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT:    %[[A:.*]] = dnn.binary add %[[M]], %b
// CHECK-NEXT:    dnn.quantize %[[A]]
func.func @negative_product_read_twice(%xq: tensor<4x16xui8>) -> (tensor<4x8xui8>, tensor<4x8xf32>) {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %b = dnn.constant dense<0.5> : tensor<8xf32>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %a = dnn.binary add %m, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %y = dnn.quantize %a, %ys, %yz : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
  func.return %y, %m : tensor<4x8xui8>, tensor<4x8xf32>
}

// -----

/// A residual add (a full tensor, not a row) is no bias: it stays an f32 binary.
// CHECK-LABEL: func.func @negative_residual_not_bias
// CHECK:         %[[M:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws : {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT:    dnn.binary add %[[M]], %r
func.func @negative_residual_not_bias(%xq: tensor<4x16xui8>, %r: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %a = dnn.binary add %m, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %a : tensor<4x8xf32>
}

// -----

/// Without VNNI a weight beyond 7 bits (100) would saturate vpmaddubsw's s16 pair sums, and
/// oneDNN halves the weights of an s8 source: neither fuses there (both do with VNNI).
// CHECK-LABEL: func.func @negative_without_vnni_eight_bits_or_s8_source
// CHECK:         dnn.qmatmul %xq, %wq
// CHECK:         dnn.qmatmul %sq, %vq
// NOVNNI: dnn-fuse-quantized-matmul.mlir:[[# @LINE + 10]]:3: remark: [dnn-fuse-quantized-matmul] not fused: this CPU has no VNNI and a weight is 100, beyond 7 bits
// NOVNNI: dnn-fuse-quantized-matmul.mlir:[[# @LINE + 12]]:3: remark: [dnn-fuse-quantized-matmul] not fused: this CPU has no VNNI and the source is s8
func.func @negative_without_vnni_eight_bits_or_s8_source(%xq: tensor<4x16xui8>, %sq: tensor<4x16xi8>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %sz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<100> : tensor<16x8xi8>
  %vq = dnn.constant dense<3> : tensor<16x8xi8>
  %x = dnn.dequantize %xq, %s, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %s, %sz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %y = dnn.dequantize %sq, %s, %sz : (tensor<4x16xi8>, tensor<f32>, tensor<i8>) -> tensor<4x16xf32>
  %v = dnn.dequantize %vq, %s, %sz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %n = dnn.matmul %y, %v : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  func.return %m, %n : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

/// Must not fire: the zero point is 0 (oneDNN then runs without one) or the result is f32
/// (no zero point).
// ROUND-LABEL: func.func @negative_round_first_zero_point_zero_or_f32
// ROUND:         dnn.qmatmul %xq, %wq, %s, %xz, %s dst(%s, %yz : tensor<f32>, tensor<ui8>) :
// ROUND:         dnn.qmatmul %xq, %wq, %s, %xz, %s :
func.func @negative_round_first_zero_point_zero_or_f32(%xq: tensor<4x16xui8>) -> (tensor<4x8xui8>, tensor<4x8xf32>) {
  %s = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %y = dnn.qmatmul %xq, %wq, %s, %xz, %s dst(%s, %yz : tensor<f32>, tensor<ui8>) : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<4x8xui8>
  %f = dnn.qmatmul %xq, %wq, %s, %xz, %s : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<4x8xf32>
  func.return %y, %f : tensor<4x8xui8>, tensor<4x8xf32>
}

// -----

/// Must not fire: the result's scale is known at run time only (the post-op needs a
/// number); oneDNN adds the zero point, with a remark (checked before @qdq_gemm_bias).
// ROUND-LABEL: func.func @negative_round_first_scale_not_constant
// ROUND:         dnn.qmatmul %xq, %wq, %s, %xz, %s dst(%ys, %yz : tensor<f32>, tensor<ui8>) :
func.func @negative_round_first_scale_not_constant(%xq: tensor<4x16xui8>, %ys: tensor<f32>) -> tensor<4x8xui8> {
  %s = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %yz = dnn.constant dense<3> : tensor<ui8>
  %y = dnn.qmatmul %xq, %wq, %s, %xz, %s dst(%ys, %yz : tensor<f32>, tensor<ui8>) : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<4x8xui8>
  func.return %y : tensor<4x8xui8>
}

// -----

/// Rule 7: a classifier's head, Gemm -> Q -> DQ -> output. The dequantize goes into the
/// qmatmul: the requantization (1/0.05 = 20, round), the saturation of the ui8 result with
/// zero point 3 (clip to [0 - 3, 255 - 3]) and the dequantization (x 0.05) as post-ops,
/// writing f32; rule 6 leaves it alone (no 8-bit result).
// CHECK-LABEL: func.func @head_dequantized
// CHECK-NOT:     dnn.dequantize
// CHECK:         %[[Y:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws {post_ops = [#dnn.eltwise<linear, 19.99999970197678>, #dnn.eltwise<round>, #dnn.eltwise<clip, -3.0, 252.0>, #dnn.eltwise<linear, 0.05000000074505806>]} : {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
// ROUND-LABEL: func.func @head_dequantized
// ROUND:         dnn.qmatmul %xq, %wq, %xs, %xz, %ws {post_ops = [#dnn.eltwise<linear, 19.99999970197678>, #dnn.eltwise<round>, #dnn.eltwise<clip, -3.0, 252.0>, #dnn.eltwise<linear, 0.05000000074505806>]} : {{.*}} -> tensor<4x8xf32>
func.func @head_dequantized(%xq: tensor<4x16xui8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<3> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %q = dnn.quantize %m, %ys, %yz : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
  %y = dnn.dequantize %q, %ys, %yz : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

/// Dequantized with another zero point than the quantize's: (q - 5) * s is not what the
/// post-ops would compute from the rounding; the 8-bit result and the dequantize stay.
// CHECK-LABEL: func.func @negative_head_dequantized_other_zero_point
// CHECK:         %[[Q:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws dst(%ys, %yz : tensor<f32>, tensor<ui8>) : {{.*}} -> tensor<4x8xui8>
// CHECK-NEXT:    dnn.dequantize %[[Q]], %ys, %dz
// REMARK: {{.*}}:[[# @LINE + 14]]:3: remark: [dnn-fuse-quantized-matmul] not fused: dequantized with another scale or zero point
func.func @negative_head_dequantized_other_zero_point(%xq: tensor<4x16xui8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<3> : tensor<ui8>
  %dz = dnn.constant dense<5> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %q = dnn.quantize %m, %ys, %yz : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
  %y = dnn.dequantize %q, %ys, %dz : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

/// Dequantized with another scale (0.04) and the quantize's zero point: the 8-bit result
/// and the dequantize stay.
// CHECK-LABEL: func.func @negative_head_dequantized_other_scale
// CHECK:         %[[Q:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws dst(%ys, %yz : tensor<f32>, tensor<ui8>) : {{.*}} -> tensor<4x8xui8>
// CHECK-NEXT:    dnn.dequantize %[[Q]], %ds, %yz
// REMARK: {{.*}}:[[# @LINE + 14]]:3: remark: [dnn-fuse-quantized-matmul] not fused: dequantized with another scale or zero point
func.func @negative_head_dequantized_other_scale(%xq: tensor<4x16xui8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<3> : tensor<ui8>
  %ds = dnn.constant dense<0.04> : tensor<f32>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %q = dnn.quantize %m, %ys, %yz : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
  %y = dnn.dequantize %q, %ds, %yz : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

/// The 8-bit result is returned too: it stays, and so does its dequantize (silently: no
/// remark from here to the end).
// REMARK-NOT: not fused: dequantized
// CHECK-LABEL: func.func @negative_head_dequantized_result_read_twice
// CHECK:         %[[Q:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws dst(%ys, %yz : tensor<f32>, tensor<ui8>) : {{.*}} -> tensor<4x8xui8>
// CHECK-NEXT:    %[[Y:.*]] = dnn.dequantize %[[Q]], %ys, %yz
// CHECK-NEXT:    func.return %[[Q]], %[[Y]]
func.func @negative_head_dequantized_result_read_twice(%xq: tensor<4x16xui8>) -> (tensor<4x8xui8>, tensor<4x8xf32>) {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<3> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %q = dnn.quantize %m, %ys, %yz : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
  %y = dnn.dequantize %q, %ys, %yz : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x8xf32>
  func.return %q, %y : tensor<4x8xui8>, tensor<4x8xf32>
}

// -----

/// The dequantized value is read by an op, which may take the 8-bit value itself (the next
/// layer's int8 source): the 8-bit result and the dequantize stay (silently).
// CHECK-LABEL: func.func @negative_head_dequantized_read_by_an_op
// CHECK:         %[[Q:.*]] = dnn.qmatmul %xq, %wq, %xs, %xz, %ws dst(%ys, %yz : tensor<f32>, tensor<ui8>) : {{.*}} -> tensor<4x8xui8>
// CHECK-NEXT:    %[[Y:.*]] = dnn.dequantize %[[Q]], %ys, %yz
// CHECK-NEXT:    dnn.eltwise tanh %[[Y]]
func.func @negative_head_dequantized_read_by_an_op(%xq: tensor<4x16xui8>) -> tensor<4x8xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<16x8xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<3> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<4x16xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x16xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<16x8xi8>, tensor<f32>, tensor<i8>) -> tensor<16x8xf32>
  %m = dnn.matmul %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %q = dnn.quantize %m, %ys, %yz : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
  %y = dnn.dequantize %q, %ys, %yz : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x8xf32>
  %r = dnn.eltwise tanh %y : tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
