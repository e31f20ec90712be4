// RUN: dnnc-opt %s -p dnn-fuse-post-ops --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-fuse-post-ops --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// conv2d + relu ==> conv2d {post_ops = [relu]}; the fused op keeps the conv's location.
// CHECK-LABEL: func.func @conv2d_relu_fused
// CHECK:         %[[Y:.*]] = dnn.conv2d %src, %wei
// CHECK-SAME:      post_ops = [#dnn.eltwise<relu>]
// CHECK-NOT:     dnn.eltwise
// CHECK:         func.return %[[Y]]
// REMARK: dnn-fuse-post-ops.mlir:[[# @LINE + 3]]:3: remark: [dnn-fuse-post-ops] fused into dnn.conv2d at {{.*}}dnn-fuse-post-ops.mlir:[[# @LINE + 2]]:3 as #dnn.eltwise<relu>
func.func @conv2d_relu_fused(%src: tensor<1x8x6x6xf32>, %wei: tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  %r = dnn.eltwise relu %c : tensor<1x16x4x4xf32>
  func.return %r : tensor<1x16x4x4xf32>
}

// -----

/// deconv2d is an anchor like conv2d: a per-channel binary add, then relu.
// CHECK-LABEL: func.func @deconv2d_binary_relu_fused
// CHECK:         %[[Y:.*]] = dnn.deconv2d %src, %wei post_args(%k : tensor<1x16x1x1xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<add>, #dnn.eltwise<relu>]
// CHECK-NOT:     dnn.eltwise
// CHECK:         func.return %[[Y]]
func.func @deconv2d_binary_relu_fused(%src: tensor<1x8x4x4xf32>, %wei: tensor<16x8x4x4xf32>, %k: tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %c = dnn.deconv2d %src, %wei {strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<16x8x4x4xf32>) -> tensor<1x16x8x8xf32>
  %a = dnn.binary add %c, %k : (tensor<1x16x8x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x8x8xf32>
  %r = dnn.eltwise relu %a : tensor<1x16x8x8xf32>
  func.return %r : tensor<1x16x8x8xf32>
}

// -----

/// matmul + gelu, alpha and beta carried over.
// CHECK-LABEL: func.func @matmul_gelu_fused
// CHECK:         dnn.matmul %lhs, %rhs, %bias {post_ops = [#dnn.eltwise<gelu_tanh>]}
// CHECK-NOT:     dnn.eltwise
func.func @matmul_gelu_fused(%lhs: tensor<4x8xf32>, %rhs: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %m = dnn.matmul %lhs, %rhs, %bias : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %g = dnn.eltwise gelu_tanh %m : tensor<4x16xf32>
  func.return %g : tensor<4x16xf32>
}

// -----

/// inner_product + leaky relu (alpha is the slope).
// CHECK-LABEL: func.func @inner_product_leaky_relu_fused
// CHECK:         dnn.inner_product %src, %wei {post_ops = [#dnn.eltwise<leaky_relu, 0.1{{[0-9]*}}>]}
// CHECK-NOT:     dnn.eltwise
func.func @inner_product_leaky_relu_fused(%src: tensor<2x32xf32>, %wei: tensor<10x32xf32>) -> tensor<2x10xf32> {
  %f = dnn.inner_product %src, %wei : (tensor<2x32xf32>, tensor<10x32xf32>) -> tensor<2x10xf32>
  %r = dnn.eltwise leaky_relu %f {alpha = 0.1 : f32} : tensor<2x10xf32>
  func.return %r : tensor<2x10xf32>
}

// -----

/// pool + per-channel multiply: the other operand becomes a post_arg.
// CHECK-LABEL: func.func @pool_mul_per_channel_fused
// CHECK:         dnn.pool max %src post_args(%scale : tensor<1x4x1x1xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<mul>]
// CHECK-NOT:     dnn.binary
func.func @pool_mul_per_channel_fused(%src: tensor<1x4x8x8xf32>, %scale: tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %p = dnn.pool max %src {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %m = dnn.binary mul %p, %scale : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  func.return %m : tensor<1x4x4x4xf32>
}

// -----

/// A binary is itself an anchor: binary + sigmoid.
// CHECK-LABEL: func.func @binary_sigmoid_fused
// CHECK:         dnn.binary add %a, %b {post_ops = [#dnn.eltwise<sigmoid>]}
// CHECK-NOT:     dnn.eltwise
func.func @binary_sigmoid_fused(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = dnn.binary add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = dnn.eltwise sigmoid %s : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// A residual add with the conv on the right (add commutes) is a binary post-op, never a sum.
// CHECK-LABEL: func.func @conv2d_residual_add_rhs_fused
// CHECK:         %[[Y:.*]] = dnn.conv2d %src, %wei post_args(%src : tensor<1x8x4x4xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<add>]
// CHECK-NOT:     dnn.sum
// CHECK:         func.return %[[Y]]
func.func @conv2d_residual_add_rhs_fused(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.binary add %src, %c : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %s : tensor<1x8x4x4xf32>
}

// -----

/// conv + bias (per-channel add) + residual add + relu: the whole chain, arguments in order.
// CHECK-LABEL: func.func @conv2d_bias_add_relu_chain
// CHECK:         %[[Y:.*]] = dnn.conv2d %src, %wei post_args(%bias, %res : tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<add>, #dnn.binary<add>, #dnn.eltwise<relu>]
// CHECK-NOT:     dnn.binary
// CHECK-NOT:     dnn.eltwise
// CHECK:         func.return %[[Y]]
func.func @conv2d_bias_add_relu_chain(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>, %bias: tensor<1x8x1x1xf32>, %res: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %b = dnn.binary add %c, %bias : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.binary add %b, %res : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = dnn.eltwise relu %s : tensor<1x8x4x4xf32>
  func.return %r : tensor<1x8x4x4xf32>
}

// -----

/// An operand defined between the anchor and the consumer: the fused op moves to the consumer.
// CHECK-LABEL: func.func @conv2d_add_late_operand_fused
// CHECK:         %[[T:.*]] = dnn.eltwise tanh %other
// CHECK-NEXT:    dnn.conv2d %src, %wei post_args(%[[T]] : tensor<1x8x4x4xf32>)
func.func @conv2d_add_late_operand_fused(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>, %other: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %t = dnn.eltwise tanh %other : tensor<1x8x4x4xf32>
  %s = dnn.binary add %c, %t : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %s : tensor<1x8x4x4xf32>
}

// -----

/// A vector operand (numpy broadcasting prepends dimensions) is reshaped to the result's rank.
// CHECK-LABEL: func.func @matmul_add_vector_reshaped
// CHECK:         %[[V:.*]] = dnn.reshape %vec : (tensor<16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT:    dnn.matmul %lhs, %rhs post_args(%[[V]] : tensor<1x16xf32>) {post_ops = [#dnn.binary<sub>]}
func.func @matmul_add_vector_reshaped(%lhs: tensor<4x8xf32>, %rhs: tensor<8x16xf32>, %vec: tensor<16xf32>) -> tensor<4x16xf32> {
  %m = dnn.matmul %lhs, %rhs : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s = dnn.binary sub %m, %vec : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  func.return %s : tensor<4x16xf32>
}

// -----

/// matmul's output channels are its last dimension (per-oc), not dimension 1.
// CHECK-LABEL: func.func @matmul_3d_per_oc_fused
// CHECK:         dnn.matmul %lhs, %rhs post_args(%oc : tensor<1x1x16xf32>) {post_ops = [#dnn.binary<mul>]}
func.func @matmul_3d_per_oc_fused(%lhs: tensor<2x4x8xf32>, %rhs: tensor<2x8x16xf32>, %oc: tensor<1x1x16xf32>) -> tensor<2x4x16xf32> {
  %m = dnn.matmul %lhs, %rhs : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %s = dnn.binary mul %m, %oc : (tensor<2x4x16xf32>, tensor<1x1x16xf32>) -> tensor<2x4x16xf32>
  func.return %s : tensor<2x4x16xf32>
}

// -----

/// A consumer binary that already has post-ops brings them along, after its own binary.
// CHECK-LABEL: func.func @conv2d_binary_with_post_ops_fused
// CHECK:         dnn.conv2d %src, %wei post_args(%res, %scale : tensor<1x8x4x4xf32>, tensor<1x1x1x1xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<max>, #dnn.binary<mul>, #dnn.eltwise<tanh>]
func.func @conv2d_binary_with_post_ops_fused(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>, %res: tensor<1x8x4x4xf32>, %scale: tensor<1x1x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.binary max %c, %res post_args(%scale : tensor<1x1x1x1xf32>) {post_ops = [#dnn.binary<mul>, #dnn.eltwise<tanh>]} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %s : tensor<1x8x4x4xf32>
}

// -----

/// Two single-use convs summed: the left one absorbs the add, the right one is its argument.
// CHECK-LABEL: func.func @two_convs_add_fused_into_lhs
// CHECK:         %[[R:.*]] = dnn.conv2d %src, %w2
// CHECK-NEXT:    dnn.conv2d %src, %w1 post_args(%[[R]] : tensor<1x8x4x4xf32>) {post_ops = [#dnn.binary<add>]}
func.func @two_convs_add_fused_into_lhs(%src: tensor<1x8x4x4xf32>, %w1: tensor<8x8x1x1xf32>, %w2: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c1 = dnn.conv2d %src, %w1 : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %c2 = dnn.conv2d %src, %w2 : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.binary add %c1, %c2 : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %s : tensor<1x8x4x4xf32>
}

// -----

/// relu then clip(0, 6) in a chain is one relu6 post-op.
// CHECK-LABEL: func.func @conv2d_relu_clip_merged
// CHECK:         dnn.conv2d %src, %wei {post_ops = [#dnn.eltwise<relu6>]}
// CHECK-NOT:     dnn.eltwise
func.func @conv2d_relu_clip_merged(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %r = dnn.eltwise relu %c : tensor<1x8x4x4xf32>
  %k = dnn.eltwise clip %r {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<1x8x4x4xf32>
  func.return %k : tensor<1x8x4x4xf32>
}

// -----

/// Two standalone eltwise ops: relu then clip(0, 6) is relu6.
// CHECK-LABEL: func.func @eltwise_relu_clip_combined
// CHECK:         %[[Y:.*]] = dnn.eltwise relu6 %src
// CHECK-NOT:     dnn.eltwise
// CHECK:         func.return %[[Y]]
// REMARK: dnn-fuse-post-ops.mlir:[[# @LINE + 3]]:3: remark: [dnn-fuse-post-ops] combined with dnn.eltwise at {{.*}}:[[# @LINE + 2]]:3 into relu6
func.func @eltwise_relu_clip_combined(%src: tensor<8xf32>) -> tensor<8xf32> {
  %r = dnn.eltwise relu %src : tensor<8xf32>
  %k = dnn.eltwise clip %r {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<8xf32>
  func.return %k : tensor<8xf32>
}

// -----

/// clip(-1, 5) then clip(0, 8) is clip(0, 5).
// CHECK-LABEL: func.func @eltwise_clip_clip_tighter
// CHECK:         dnn.eltwise clip %src {beta = 5.000000e+00 : f32}
// CHECK-NOT:     dnn.eltwise
func.func @eltwise_clip_clip_tighter(%src: tensor<8xf32>) -> tensor<8xf32> {
  %a = dnn.eltwise clip %src {alpha = -1.0 : f32, beta = 5.0 : f32} : tensor<8xf32>
  %b = dnn.eltwise clip %a {alpha = 0.0 : f32, beta = 8.0 : f32} : tensor<8xf32>
  func.return %b : tensor<8xf32>
}

// -----

/// linear(2, 1) then linear(3, -1) is linear(6, 2).
// CHECK-LABEL: func.func @eltwise_linear_linear_combined
// CHECK:         dnn.eltwise linear %src {alpha = 6.000000e+00 : f32, beta = 2.000000e+00 : f32}
// CHECK-NOT:     dnn.eltwise
func.func @eltwise_linear_linear_combined(%src: tensor<8xf32>) -> tensor<8xf32> {
  %a = dnn.eltwise linear %src {alpha = 2.0 : f32, beta = 1.0 : f32} : tensor<8xf32>
  %b = dnn.eltwise linear %a {alpha = 3.0 : f32, beta = -1.0 : f32} : tensor<8xf32>
  func.return %b : tensor<8xf32>
}

// -----

/// The pre-activation value is also returned, so fusing would lose it.
// CHECK-LABEL: func.func @negative_conv2d_relu_multi_use
// CHECK:         dnn.conv2d %src, %wei : (
// CHECK:         dnn.eltwise relu %c
// REMARK: dnn-fuse-post-ops.mlir:[[# @LINE + 3]]:3: remark: [dnn-fuse-post-ops] not fused: %c is also read by func.return at {{.*}}dnn-fuse-post-ops.mlir:[[# @LINE + 4]]:3
func.func @negative_conv2d_relu_multi_use(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %r = dnn.eltwise relu %c : tensor<1x8x4x4xf32>
  func.return %c, %r : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

/// A concat also reads the conv result.
// CHECK-LABEL: func.func @negative_conv2d_add_also_read_by_concat
// CHECK:         dnn.conv2d %src, %wei : (
// CHECK:         dnn.binary add %c, %src
// REMARK: dnn-fuse-post-ops.mlir:[[# @LINE + 3]]:3: remark: [dnn-fuse-post-ops] not fused: lhs: %c is also read by dnn.concat at {{.*}}dnn-fuse-post-ops.mlir:[[# @LINE + 4]]:3; rhs %src is a function argument
func.func @negative_conv2d_add_also_read_by_concat(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> tensor<1x16x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.binary add %c, %src : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %k = dnn.concat %c, %s {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x16x4x4xf32>
  func.return %k : tensor<1x16x4x4xf32>
}

// -----

/// x - conv(x) is not conv(x) - x: sub does not commute.
// CHECK-LABEL: func.func @negative_sub_conv_on_rhs
// CHECK:         dnn.conv2d %src, %wei : (
// CHECK:         dnn.binary sub %src, %c
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs %src is a function argument; %c is the right operand of sub
func.func @negative_sub_conv_on_rhs(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.binary sub %src, %c : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %s : tensor<1x8x4x4xf32>
}

// -----

/// The binary broadcasts the anchor's result to a bigger shape: a post-op cannot grow it.
// CHECK-LABEL: func.func @negative_binary_broadcasts_anchor
// CHECK:         dnn.pool avg_include_pad %src
// CHECK-SAME:      -> tensor<1x8x1x1xf32>
// CHECK:         dnn.binary mul %p, %big
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs: dnn.binary broadcasts %p from 1x8x1x1 to 1x8x4x4; rhs %big is a function argument
func.func @negative_binary_broadcasts_anchor(%src: tensor<1x8x4x4xf32>, %big: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %p = dnn.pool avg_include_pad %src {kernel = array<i64: 4, 4>} : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
  %m = dnn.binary mul %p, %big : (tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %m : tensor<1x8x4x4xf32>
}

// -----

/// A spatial-only operand [1, 1, H, W] is no broadcast oneDNN's convolution has a fast post-op
/// for (a matmul's is: see @matmul_add_attention_mask).
// CHECK-LABEL: func.func @negative_conv2d_add_spatial_broadcast
// CHECK:         dnn.conv2d %src, %wei : (
// CHECK:         dnn.binary add %c, %mask
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs: dnn.conv2d takes no per-mb-spatial binary post-op argument; rhs %mask is a function argument
func.func @negative_conv2d_add_spatial_broadcast(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>, %mask: tensor<1x1x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.binary add %c, %mask : (tensor<1x8x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %s : tensor<1x8x4x4xf32>
}

// -----

/// The binary's result takes its lhs element type (bf16): fusing would change the f32 conv.
// CHECK-LABEL: func.func @negative_add_changes_element_type
// CHECK:         dnn.conv2d %src, %wei : (
// CHECK:         dnn.binary add %low, %c
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs %low is a function argument; rhs: the element type changes from f32 to bf16
func.func @negative_add_changes_element_type(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>, %low: tensor<1x8x4x4xbf16>) -> tensor<1x8x4x4xbf16> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.binary add %low, %c : (tensor<1x8x4x4xbf16>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xbf16>
  func.return %s : tensor<1x8x4x4xbf16>
}

// -----

/// batch_norm has no post-ops in oneDNN: the relu stays.
// CHECK-LABEL: func.func @negative_batch_norm_relu
// CHECK:         dnn.batch_norm
// CHECK:         dnn.eltwise relu %n
// REMARK: remark: [dnn-fuse-post-ops] not fused: dnn.batch_norm takes no post-ops in oneDNN
func.func @negative_batch_norm_relu(%src: tensor<1x4x2x2xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %n = dnn.batch_norm %src, %s, %b, %m, %v : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  %r = dnn.eltwise relu %n : tensor<1x4x2x2xf32>
  func.return %r : tensor<1x4x2x2xf32>
}

// -----

/// tanh then relu has no single oneDNN algorithm.
// CHECK-LABEL: func.func @negative_eltwise_tanh_relu_no_combined_form
// CHECK:         dnn.eltwise tanh %src
// CHECK:         dnn.eltwise relu %t
// REMARK: remark: [dnn-fuse-post-ops] not fused: oneDNN has no single algorithm for relu after tanh
func.func @negative_eltwise_tanh_relu_no_combined_form(%src: tensor<8xf32>) -> tensor<8xf32> {
  %t = dnn.eltwise tanh %src : tensor<8xf32>
  %r = dnn.eltwise relu %t : tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// -----

/// The relu result is also returned, so it cannot merge into the clip.
// CHECK-LABEL: func.func @negative_eltwise_combine_multi_use
// CHECK:         dnn.eltwise relu %src
// CHECK:         dnn.eltwise clip %r
// REMARK: remark: [dnn-fuse-post-ops] not fused: %r is also read by func.return
func.func @negative_eltwise_combine_multi_use(%src: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %r = dnn.eltwise relu %src : tensor<8xf32>
  %k = dnn.eltwise clip %r {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<8xf32>
  func.return %r, %k : tensor<8xf32>, tensor<8xf32>
}

// -----

/// Disjoint clips clamp to a constant, which is still one clip: clip(0, 1) then clip(2, 3) is 2.
// CHECK-LABEL: func.func @eltwise_clip_disjoint_constant
// CHECK:         dnn.eltwise clip %src {alpha = 2.000000e+00 : f32, beta = 2.000000e+00 : f32}
func.func @eltwise_clip_disjoint_constant(%src: tensor<8xf32>) -> tensor<8xf32> {
  %a = dnn.eltwise clip %src {alpha = 0.0 : f32, beta = 1.0 : f32} : tensor<8xf32>
  %b = dnn.eltwise clip %a {alpha = 2.0 : f32, beta = 3.0 : f32} : tensor<8xf32>
  func.return %b : tensor<8xf32>
}

// -----

/// oneDNN 3.2's pooling reads a full-shape binary argument wrongly: a full-shape add stays.
// CHECK-LABEL: func.func @negative_pool_full_shape_operand
// CHECK:         dnn.pool max %src
// CHECK:         dnn.binary add %p, %full
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs: dnn.pool takes no full binary post-op argument; rhs %full is a function argument
func.func @negative_pool_full_shape_operand(%src: tensor<1x4x8x8xf32>, %full: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %p = dnn.pool max %src {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %a = dnn.binary add %p, %full : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %a : tensor<1x4x4x4xf32>
}

// -----

/// An eltwise algorithm oneDNN lacks (softsign runs its reference kernel) is never a post-op.
// CHECK-LABEL: func.func @negative_softsign_not_fused
// CHECK:         %[[C:.*]] = dnn.conv2d %src, %wei {pads_begin
// CHECK-NOT:       post_ops = [#dnn.eltwise<softsign>]
// CHECK:         dnn.eltwise softsign %[[C]]
// REMARK: remark: [dnn-fuse-post-ops] not fused: oneDNN has no eltwise softsign (it runs its reference kernel)
func.func @negative_softsign_not_fused(%src: tensor<1x8x6x6xf32>, %wei: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %c = dnn.conv2d %src, %wei {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  %s = dnn.eltwise softsign %c : tensor<1x8x6x6xf32>
  func.return %s : tensor<1x8x6x6xf32>
}

// -----

/// A linear layer over a sequence, as the ONNX importer writes it (2-D matmul between
/// reshapes): the bias (left operand, varying along the last dimension only) and the gelu
/// fuse into the matmul through the reshape; the bias becomes 1x32, the result is reshaped.
// CHECK-LABEL: func.func @matmul_bias_gelu_through_reshape
// CHECK:         %[[B:.*]] = dnn.reshape %bias : (tensor<32xf32>) -> tensor<1x32xf32>
// CHECK:         %[[M:.*]] = dnn.matmul %flat, %wei post_args(%[[B]] : tensor<1x32xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<add>, #dnn.eltwise<gelu_erf>]
// CHECK-SAME:      -> tensor<8x32xf32>
// CHECK-NEXT:    %[[R:.*]] = dnn.reshape %[[M]] : (tensor<8x32xf32>) -> tensor<1x8x32xf32>
// CHECK-NOT:     dnn.binary
// CHECK-NOT:     dnn.eltwise
// CHECK:         func.return %[[R]]
// REMARK: dnn-fuse-post-ops.mlir:[[# @LINE + 6]]:3: remark: [dnn-fuse-post-ops] fused into dnn.matmul at {{.*}}dnn-fuse-post-ops.mlir:[[# @LINE + 4]]:3 through the dnn.reshape of its result as #dnn.binary<add>
// REMARK: dnn-fuse-post-ops.mlir:[[# @LINE + 6]]:3: remark: [dnn-fuse-post-ops] fused into dnn.matmul at {{.*}}dnn-fuse-post-ops.mlir:[[# @LINE + 3]]:3 through the dnn.reshape of its result as #dnn.eltwise<gelu_erf>
func.func @matmul_bias_gelu_through_reshape(%x: tensor<1x8x16xf32>, %wei: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<1x8x32xf32> {
  %flat = dnn.reshape %x : (tensor<1x8x16xf32>) -> tensor<8x16xf32>
  %m = dnn.matmul %flat, %wei : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %r = dnn.reshape %m : (tensor<8x32xf32>) -> tensor<1x8x32xf32>
  %a = dnn.binary add %bias, %r : (tensor<32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %g = dnn.eltwise gelu_erf %a : tensor<1x8x32xf32>
  func.return %g : tensor<1x8x32xf32>
}

// -----

/// A residual of the consumer's whole shape follows the reshape too (reshaped to 8x32).
// CHECK-LABEL: func.func @matmul_residual_through_reshape
// CHECK:         %[[S:.*]] = dnn.reshape %skip : (tensor<1x8x32xf32>) -> tensor<8x32xf32>
// CHECK:         %[[M:.*]] = dnn.matmul %flat, %wei post_args(%[[S]] : tensor<8x32xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<add>]
// CHECK-NEXT:    dnn.reshape %[[M]] : (tensor<8x32xf32>) -> tensor<1x8x32xf32>
func.func @matmul_residual_through_reshape(%flat: tensor<8x16xf32>, %wei: tensor<16x32xf32>, %skip: tensor<1x8x32xf32>) -> tensor<1x8x32xf32> {
  %m = dnn.matmul %flat, %wei : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %r = dnn.reshape %m : (tensor<8x32xf32>) -> tensor<1x8x32xf32>
  %a = dnn.binary add %r, %skip : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  func.return %a : tensor<1x8x32xf32>
}

// -----

/// Not through a reshape: a per-row operand (1x8x1) varies along a dimension the reshape
/// merges, so it has no 8x32 form; the reshape splits the last dimension (8x32 -> 8x4x8),
/// so a bias over the new last one does not map either.
// CHECK-LABEL: func.func @negative_through_reshape_rows
// CHECK:         dnn.matmul %flat, %wei :
// CHECK:         dnn.binary mul
// CHECK:         dnn.matmul %flat, %wei :
// CHECK:         dnn.binary add
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs: %row (1x8x1) does not follow the reshape of %m to 1x8x32; rhs %row is a function argument
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs: %b8 (8) does not follow the reshape of %n to 8x4x8; rhs %b8 is a function argument
func.func @negative_through_reshape_rows(%flat: tensor<8x16xf32>, %wei: tensor<16x32xf32>, %row: tensor<1x8x1xf32>, %b8: tensor<8xf32>) -> (tensor<1x8x32xf32>, tensor<8x4x8xf32>) {
  %m = dnn.matmul %flat, %wei : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %r = dnn.reshape %m : (tensor<8x32xf32>) -> tensor<1x8x32xf32>
  %s = dnn.binary mul %r, %row : (tensor<1x8x32xf32>, tensor<1x8x1xf32>) -> tensor<1x8x32xf32>
  %n = dnn.matmul %flat, %wei : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %h = dnn.reshape %n : (tensor<8x32xf32>) -> tensor<8x4x8xf32>
  %a = dnn.binary add %h, %b8 : (tensor<8x4x8xf32>, tensor<8xf32>) -> tensor<8x4x8xf32>
  func.return %s, %a : tensor<1x8x32xf32>, tensor<8x4x8xf32>
}

// -----

/// Not through a reshape whose result is also returned: the matmul's own result would be lost.
// CHECK-LABEL: func.func @negative_through_reshape_two_uses
// CHECK:         dnn.matmul %flat, %wei :
// CHECK:         dnn.eltwise relu
// REMARK: remark: [dnn-fuse-post-ops] not fused: %r, a reshape of %m, is also read by func.return at {{.*}}
func.func @negative_through_reshape_two_uses(%flat: tensor<8x16xf32>, %wei: tensor<16x32xf32>) -> (tensor<1x8x32xf32>, tensor<1x8x32xf32>) {
  %m = dnn.matmul %flat, %wei : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %r = dnn.reshape %m : (tensor<8x32xf32>) -> tensor<1x8x32xf32>
  %e = dnn.eltwise relu %r : tensor<1x8x32xf32>
  func.return %e, %r : tensor<1x8x32xf32>, tensor<1x8x32xf32>
}

// -----

/// An attention mask [B, 1, L, S] over the heads of a matmul's scores [B, H, L, S] is a
/// per-mb-spatial argument, which oneDNN's optimized matmul takes.
// CHECK-LABEL: func.func @matmul_add_attention_mask
// CHECK:         %[[S:.*]] = dnn.matmul %q, %kt post_args(%mask : tensor<2x1x4x6xf32>) {post_ops = [#dnn.binary<add>]}
// CHECK-NEXT:    func.return %[[S]]
func.func @matmul_add_attention_mask(%q: tensor<2x4x4x8xf32>, %kt: tensor<2x4x8x6xf32>, %mask: tensor<2x1x4x6xf32>) -> tensor<2x4x4x6xf32> {
  %s = dnn.matmul %q, %kt : (tensor<2x4x4x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x4x6xf32>
  %a = dnn.binary add %s, %mask : (tensor<2x4x4x6xf32>, tensor<2x1x4x6xf32>) -> tensor<2x4x4x6xf32>
  func.return %a : tensor<2x4x4x6xf32>
}

// -----

/// A padding mask [B, 1, 1, S] is per-mb-w: fused too.
// CHECK-LABEL: func.func @matmul_add_padding_mask
// CHECK:         dnn.matmul %q, %kt post_args(%mask : tensor<2x1x1x6xf32>) {post_ops = [#dnn.binary<add>]}
func.func @matmul_add_padding_mask(%q: tensor<2x4x4x8xf32>, %kt: tensor<2x4x8x6xf32>, %mask: tensor<2x1x1x6xf32>) -> tensor<2x4x4x6xf32> {
  %s = dnn.matmul %q, %kt : (tensor<2x4x4x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x4x6xf32>
  %a = dnn.binary add %s, %mask : (tensor<2x4x4x6xf32>, tensor<2x1x1x6xf32>) -> tensor<2x4x4x6xf32>
  func.return %a : tensor<2x4x4x6xf32>
}

// -----

/// A mask [1, 1, L, S] shared by a batch of 2 has no fast form in oneDNN's matmul (its
/// reference kernel would run the whole product): the add stays.
// CHECK-LABEL: func.func @negative_matmul_add_mask_shared_by_the_batch
// CHECK:         dnn.matmul %q, %kt : (
// CHECK:         dnn.binary add %s, %mask
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs: %mask (1x1x4x6) broadcasts to 2x4x4x6 neither per-tensor, per-channel, per-oc nor full; rhs %mask is a function argument
func.func @negative_matmul_add_mask_shared_by_the_batch(%q: tensor<2x4x4x8xf32>, %kt: tensor<2x4x8x6xf32>, %mask: tensor<1x1x4x6xf32>) -> tensor<2x4x4x6xf32> {
  %s = dnn.matmul %q, %kt : (tensor<2x4x4x8xf32>, tensor<2x4x8x6xf32>) -> tensor<2x4x4x6xf32>
  %a = dnn.binary add %s, %mask : (tensor<2x4x4x6xf32>, tensor<1x1x4x6xf32>) -> tensor<2x4x4x6xf32>
  func.return %a : tensor<2x4x4x6xf32>
}

// -----

/// Grouped-head scores are rank 5: oneDNN's matmul takes no broadcast mask there.
// CHECK-LABEL: func.func @negative_matmul_add_mask_rank_5
// CHECK:         dnn.binary add %s, %mask
// REMARK: remark: [dnn-fuse-post-ops] not fused: lhs: %mask (2x1x1x4x6) broadcasts to 2x2x2x4x6 neither per-tensor, per-channel, per-oc nor full; rhs %mask is a function argument
func.func @negative_matmul_add_mask_rank_5(%q: tensor<2x2x2x4x8xf32>, %kt: tensor<2x2x1x8x6xf32>, %mask: tensor<2x1x1x4x6xf32>) -> tensor<2x2x2x4x6xf32> {
  %s = dnn.matmul %q, %kt : (tensor<2x2x2x4x8xf32>, tensor<2x2x1x8x6xf32>) -> tensor<2x2x2x4x6xf32>
  %a = dnn.binary add %s, %mask : (tensor<2x2x2x4x6xf32>, tensor<2x1x1x4x6xf32>) -> tensor<2x2x2x4x6xf32>
  func.return %a : tensor<2x2x2x4x6xf32>
}
