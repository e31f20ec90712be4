// RUN: dnnc-opt %s -p dnn-fold-constants --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-fold-constants --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// batch_norm after a bias-less conv: a = scale / sqrt(var + eps) = [1, 0.5], c = shift - a * mean
/// = [1, 1]; the weights scale per output channel and a new bias holds c.
// CHECK-LABEL: func.func @conv2d_batch_norm_folded
// CHECK:         %[[W:.*]] = dnn.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK:         %[[B:.*]] = dnn.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = dnn.conv2d %src, %[[W]], %[[B]] : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NOT:     dnn.batch_norm
// CHECK:         func.return %[[Y]]
// REMARK: dnn-fold-constants.mlir:[[# @LINE + 8]]:3: remark: [dnn-fold-constants] folded into dnn.conv2d at {{.*}}dnn-fold-constants.mlir:[[# @LINE + 7]]:3
func.func @conv2d_batch_norm_folded(%src: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %wei = dnn.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %scale = dnn.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %shift = dnn.constant dense<[3.0, 2.0]> : tensor<2xf32>
  %mean = dnn.constant dense<[2.0, 2.0]> : tensor<2xf32>
  %var = dnn.constant dense<[4.0, 4.0]> : tensor<2xf32>
  %c = dnn.conv2d %src, %wei : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = dnn.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %n : tensor<1x2x4x4xf32>
}

// -----

/// deconv2d is a producer too (its wei is [O, C/groups, ...] like conv2d's): the same batch_norm
/// folds into its weights and a new bias, which also fills the output_padding column (pads_end -1).
// CHECK-LABEL: func.func @deconv2d_batch_norm_folded
// CHECK:         %[[W:.*]] = dnn.constant dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK:         %[[B:.*]] = dnn.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK:         %[[Y:.*]] = dnn.deconv2d %src, %[[W]], %[[B]] {strides = array<i64: 2, 2>, pads_end = array<i64: 0, -1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x7x8xf32>
// CHECK-NOT:     dnn.batch_norm
// CHECK:         func.return %[[Y]]
// REMARK: dnn-fold-constants.mlir:[[# @LINE + 8]]:3: remark: [dnn-fold-constants] folded into dnn.deconv2d at {{.*}}dnn-fold-constants.mlir:[[# @LINE + 7]]:3
func.func @deconv2d_batch_norm_folded(%src: tensor<1x2x4x4xf32>) -> tensor<1x2x7x8xf32> {
  %wei = dnn.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %scale = dnn.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %shift = dnn.constant dense<[3.0, 2.0]> : tensor<2xf32>
  %mean = dnn.constant dense<[2.0, 2.0]> : tensor<2xf32>
  %var = dnn.constant dense<[4.0, 4.0]> : tensor<2xf32>
  %c = dnn.deconv2d %src, %wei {strides = array<i64: 2, 2>, pads_end = array<i64: 0, -1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x7x8xf32>
  %n = dnn.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x7x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x7x8xf32>
  func.return %n : tensor<1x2x7x8xf32>
}

// -----

/// An existing bias b becomes a * b + c = [1 * 4 + 1, 0.5 * 4 + 1] = [5, 3].
// CHECK-LABEL: func.func @conv2d_bias_batch_norm_folded
// CHECK:         %[[B:.*]] = dnn.constant dense<[5.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK:         dnn.conv2d %src, %{{.*}}, %[[B]]
// CHECK-NOT:     dnn.batch_norm
func.func @conv2d_bias_batch_norm_folded(%src: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %bias = dnn.constant dense<4.0> : tensor<2xf32>
  %scale = dnn.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %shift = dnn.constant dense<[3.0, 2.0]> : tensor<2xf32>
  %mean = dnn.constant dense<[2.0, 2.0]> : tensor<2xf32>
  %var = dnn.constant dense<[4.0, 4.0]> : tensor<2xf32>
  %c = dnn.conv2d %src, %wei, %bias : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %n = dnn.batch_norm %c, %scale, %shift, %mean, %var {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %n : tensor<1x2x4x4xf32>
}

// -----

/// inner_product: output channels are wei dimension 0, as for conv.
// CHECK-LABEL: func.func @inner_product_batch_norm_folded
// CHECK:         %[[W:.*]] = dnn.constant dense<{{\[\[}}2.000000e+00, 2.000000e+00], [5.000000e-01, 5.000000e-01]]> : tensor<2x2xf32>
// CHECK:         dnn.inner_product %src, %[[W]], %{{.*}} :
// CHECK-NOT:     dnn.batch_norm
func.func @inner_product_batch_norm_folded(%src: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x2xf32>
  %scale = dnn.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %zero = dnn.constant dense<0.0> : tensor<2xf32>
  %var = dnn.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %f = dnn.inner_product %src, %wei : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %n = dnn.batch_norm %f, %scale, %zero, %zero, %var {epsilon = 0.0 : f32} : (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  func.return %n : tensor<3x2xf32>
}

// -----

/// matmul [M, N]: output channels are the columns of rhs.
// CHECK-LABEL: func.func @matmul_batch_norm_folded
// CHECK:         %[[W:.*]] = dnn.constant dense<{{\[\[}}2.000000e+00, 5.000000e-01], [2.000000e+00, 5.000000e-01], [2.000000e+00, 5.000000e-01]]> : tensor<3x2xf32>
// CHECK:         dnn.matmul %lhs, %[[W]], %{{.*}} :
// CHECK-NOT:     dnn.batch_norm
func.func @matmul_batch_norm_folded(%lhs: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %rhs = dnn.constant dense<1.0> : tensor<3x2xf32>
  %scale = dnn.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %zero = dnn.constant dense<0.0> : tensor<2xf32>
  %var = dnn.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %m = dnn.matmul %lhs, %rhs : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %n = dnn.batch_norm %m, %scale, %zero, %zero, %var {epsilon = 0.0 : f32} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  func.return %n : tensor<4x2xf32>
}

// -----

/// A constant per-channel multiply (on the left: mul commutes) scales weights and bias.
// CHECK-LABEL: func.func @conv2d_mul_per_channel_folded
// CHECK:         %[[W:.*]] = dnn.constant dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}3.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK:         %[[B:.*]] = dnn.constant dense<[2.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK:         dnn.conv2d %src, %[[W]], %[[B]]
// CHECK-NOT:     dnn.binary
func.func @conv2d_mul_per_channel_folded(%src: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %bias = dnn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %k = dnn.constant dense<[[[[2.0]], [[3.0]]]]> : tensor<1x2x1x1xf32>
  %c = dnn.conv2d %src, %wei, %bias : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = dnn.binary mul %k, %c : (tensor<1x2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

/// A per-tensor subtract changes only the bias.
// CHECK-LABEL: func.func @conv2d_sub_per_tensor_folded
// CHECK:         %[[B:.*]] = dnn.constant dense<-5.000000e-01> : tensor<2xf32>
// CHECK:         dnn.conv2d %src, %wei, %[[B]]
// CHECK-NOT:     dnn.binary
func.func @conv2d_sub_per_tensor_folded(%src: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x1x1x1xf32>
  %k = dnn.constant dense<0.5> : tensor<1x1x1x1xf32>
  %c = dnn.conv2d %src, %wei : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = dnn.binary sub %c, %k : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %y : tensor<1x2x4x4xf32>
}

// -----

/// A bias vector added to a matmul becomes its bias, even though rhs is not constant.
// CHECK-LABEL: func.func @matmul_add_bias_vector_folded
// CHECK:         %[[B:.*]] = dnn.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:         dnn.matmul %lhs, %rhs, %[[B]] : (tensor<2x4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<2x4x2xf32>
// CHECK-NOT:     dnn.binary
func.func @matmul_add_bias_vector_folded(%lhs: tensor<2x4x3xf32>, %rhs: tensor<3x2xf32>) -> tensor<2x4x2xf32> {
  %bias = dnn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %m = dnn.matmul %lhs, %rhs : (tensor<2x4x3xf32>, tensor<3x2xf32>) -> tensor<2x4x2xf32>
  %y = dnn.binary add %m, %bias : (tensor<2x4x2xf32>, tensor<2xf32>) -> tensor<2x4x2xf32>
  func.return %y : tensor<2x4x2xf32>
}

// -----

/// A transpose of a constant is evaluated; the unused source is erased.
// CHECK-LABEL: func.func @transpose_of_constant_evaluated
// CHECK:         %[[T:.*]] = dnn.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT:     dnn.transpose
// CHECK-NEXT:    dnn.matmul %lhs, %[[T]]
func.func @transpose_of_constant_evaluated(%lhs: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = dnn.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %t = dnn.transpose %w {permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %m = dnn.matmul %lhs, %t : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  func.return %m : tensor<3x2xf32>
}

// -----

/// A chain of constant ops (reshape, then add) becomes one constant.
// CHECK-LABEL: func.func @constant_subgraph_evaluated
// CHECK-NEXT:    %[[C:.*]] = dnn.constant dense<{{\[\[}}1.100000e+01, 1.200000e+01], [1.300000e+01, 1.400000e+01]]> : tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[C]]
func.func @constant_subgraph_evaluated() -> tensor<2x2xf32> {
  %a = dnn.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = dnn.constant dense<10.0> : tensor<2x2xf32>
  %r = dnn.reshape %a : (tensor<4xf32>) -> tensor<2x2xf32>
  %s = dnn.binary add %r, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %s : tensor<2x2xf32>
}

// -----

/// The conv result is also returned: folding would change that value.
// CHECK-LABEL: func.func @negative_conv2d_used_twice
// CHECK:         dnn.conv2d %src, %wei :
// CHECK:         dnn.batch_norm %c
// REMARK: remark: [dnn-fold-constants] not folded: %c is also read by func.return
func.func @negative_conv2d_used_twice(%src: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %wei = dnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %p = dnn.constant dense<1.0> : tensor<2xf32>
  %c = dnn.conv2d %src, %wei : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = dnn.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %c, %n : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

/// Statistics given at run time cannot be folded.
// CHECK-LABEL: func.func @negative_batch_norm_stats_not_constant
// CHECK:         dnn.batch_norm %c, %scale
// REMARK: remark: [dnn-fold-constants] not folded: %scale is not a dnn.constant or dnn.weight
func.func @negative_batch_norm_stats_not_constant(%src: tensor<1x2x4x4xf32>, %scale: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %p = dnn.constant dense<1.0> : tensor<2xf32>
  %c = dnn.conv2d %src, %wei : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = dnn.batch_norm %c, %scale, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %n : tensor<1x2x4x4xf32>
}

// -----

/// batch_norm before the conv (pre-activation) stays.
// CHECK-LABEL: func.func @negative_batch_norm_before_conv2d
// CHECK:         dnn.batch_norm %src
// CHECK:         dnn.conv2d %n, %wei
// REMARK: remark: [dnn-fold-constants] not folded: %src comes from a function argument, not a conv2d, matmul or inner_product
func.func @negative_batch_norm_before_conv2d(%src: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %p = dnn.constant dense<1.0> : tensor<2xf32>
  %n = dnn.batch_norm %src, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %c = dnn.conv2d %n, %wei : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  func.return %c : tensor<1x2x4x4xf32>
}

// -----

/// Post-ops apply before the batch_norm, so its scale cannot move into the weights.
// CHECK-LABEL: func.func @negative_conv2d_with_post_ops
// CHECK:         dnn.batch_norm %c
// REMARK: remark: [dnn-fold-constants] not folded: dnn.conv2d at {{.*}} has post-ops, which come first
func.func @negative_conv2d_with_post_ops(%src: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %p = dnn.constant dense<1.0> : tensor<2xf32>
  %c = dnn.conv2d %src, %wei {post_ops = [#dnn.eltwise<relu>]} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = dnn.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %n : tensor<1x2x4x4xf32>
}

// -----

/// Weights given at run time cannot absorb a scale.
// CHECK-LABEL: func.func @negative_batch_norm_weights_not_constant
// CHECK:         dnn.batch_norm %c
// REMARK: remark: [dnn-fold-constants] not folded: %wei is not a dnn.constant or dnn.weight
func.func @negative_batch_norm_weights_not_constant(%src: tensor<1x2x4x4xf32>, %wei: tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %p = dnn.constant dense<1.0> : tensor<2xf32>
  %c = dnn.conv2d %src, %wei : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = dnn.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %n : tensor<1x2x4x4xf32>
}

// -----

/// batch_norm normalizes dimension 1, which for a [B, M, N] matmul is M, not its channels.
// CHECK-LABEL: func.func @negative_matmul_3d_batch_norm
// CHECK:         dnn.batch_norm %m
// REMARK: remark: [dnn-fold-constants] not folded: batch_norm normalizes dimension 1, not the matmul's output channels
func.func @negative_matmul_3d_batch_norm(%lhs: tensor<1x2x3xf32>) -> tensor<1x2x2xf32> {
  %rhs = dnn.constant dense<1.0> : tensor<3x2xf32>
  %p = dnn.constant dense<1.0> : tensor<2xf32>
  %m = dnn.matmul %lhs, %rhs : (tensor<1x2x3xf32>, tensor<3x2xf32>) -> tensor<1x2x2xf32>
  %n = dnn.batch_norm %m, %p, %p, %p, %p : (tensor<1x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2xf32>
  func.return %n : tensor<1x2x2xf32>
}

// -----

/// A spatial constant is not per channel.
// CHECK-LABEL: func.func @negative_conv2d_add_spatial_constant
// CHECK:         dnn.binary add %c, %k
// REMARK: remark: [dnn-fold-constants] not folded: %k (1x1x2x2) is neither per-channel nor per-tensor
func.func @negative_conv2d_add_spatial_constant(%src: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %k = dnn.constant dense<1.0> : tensor<1x1x2x2xf32>
  %c = dnn.conv2d %src, %wei : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = dnn.binary add %c, %k : (tensor<1x2x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

/// A run-time bias cannot absorb a constant add.
// CHECK-LABEL: func.func @negative_conv2d_bias_not_constant
// CHECK:         dnn.binary add %c, %k
// REMARK: remark: [dnn-fold-constants] not folded: %bias is not a dnn.constant or dnn.weight
func.func @negative_conv2d_bias_not_constant(%src: tensor<1x2x2x2xf32>, %bias: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %wei = dnn.constant dense<1.0> : tensor<2x2x1x1xf32>
  %k = dnn.constant dense<1.0> : tensor<1x2x1x1xf32>
  %c = dnn.conv2d %src, %wei, %bias : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = dnn.binary add %c, %k : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

/// Integer weights cannot take a fractional scale exactly.
// CHECK-LABEL: func.func @negative_integer_weights
// CHECK:         dnn.binary mul %c, %k
// REMARK: remark: [dnn-fold-constants] not folded: %wei has integer elements
func.func @negative_integer_weights(%src: tensor<1x2x2x2xi8>) -> tensor<1x2x2x2xi8> {
  %wei = dnn.constant dense<1> : tensor<2x2x1x1xi8>
  %k = dnn.constant dense<3> : tensor<1x2x1x1xi8>
  %c = dnn.conv2d %src, %wei : (tensor<1x2x2x2xi8>, tensor<2x2x1x1xi8>) -> tensor<1x2x2x2xi8>
  %y = dnn.binary mul %c, %k : (tensor<1x2x2x2xi8>, tensor<1x2x1x1xi8>) -> tensor<1x2x2x2xi8>
  func.return %y : tensor<1x2x2x2xi8>
}

// -----

/// A matmul whose columns are counted at run time (scores of a dynamic sequence) has no
/// per-channel array to fold a scalar into.
// CHECK-LABEL: func.func @negative_matmul_dynamic_columns
// CHECK:         dnn.binary mul %m, %k
// REMARK: remark: [dnn-fold-constants] not folded: the producer's channel count is known only at run time
func.func @negative_matmul_dynamic_columns(%q: tensor<2x?x4xf32>, %kt: tensor<2x4x?xf32>) -> tensor<2x?x?xf32> {
  %k = dnn.constant dense<0.5> : tensor<1x1x1xf32>
  %m = dnn.matmul %q, %kt : (tensor<2x?x4xf32>, tensor<2x4x?xf32>) -> tensor<2x?x?xf32>
  %y = dnn.binary mul %m, %k : (tensor<2x?x?xf32>, tensor<1x1x1xf32>) -> tensor<2x?x?xf32>
  func.return %y : tensor<2x?x?xf32>
}
