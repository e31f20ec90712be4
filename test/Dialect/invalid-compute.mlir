/// One case per verifier rule of the compute ops (conv2d ... sum): the message says what is
/// wrong and what would be valid. The second RUN checks that no case verifies.
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=NOMODULE
// NOMODULE-NOT: builtin.module

/// conv2d takes a 4-D src.
// CHECK: src must have rank 4 (N, C, H, W), got rank 3 (3x8x8)
func.func @negative_conv2d_src_rank(%src: tensor<3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// deconv2d's output: (H - 1) * stride + extent - pads; a negative end pad stays above -stride.
// CHECK: pads_end must be 2 values above -strides, got [-2, 0]
func.func @negative_deconv2d_pads_end(%src: tensor<1x4x5x5xf32>, %wei: tensor<4x4x3x3xf32>) -> tensor<1x4x13x11xf32> {
  %y = dnn.deconv2d %src, %wei {strides = array<i64: 2, 2>, pads_end = array<i64: -2, 0>} : (tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x13x11xf32>
  func.return %y : tensor<1x4x13x11xf32>
}

// -----

/// deconv2d's result shape is inferred, not taken from the result type.
// CHECK: 'dnn.deconv2d' op result shape 1x4x10x10 does not match the inferred shape 1x4x11x11
func.func @negative_deconv2d_result_shape(%src: tensor<1x4x5x5xf32>, %wei: tensor<4x4x3x3xf32>) -> tensor<1x4x10x10xf32> {
  %y = dnn.deconv2d %src, %wei {strides = array<i64: 2, 2>} : (tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x10x10xf32>
  func.return %y : tensor<1x4x10x10xf32>
}

// -----

/// conv2d takes 4-D weights (O, C/groups, KH, KW).
// CHECK: wei must have rank 4 (O, C/groups, KH, KW), got rank 3 (4x3x3)
func.func @negative_conv2d_wei_rank(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// There is at least one group.
// CHECK: groups must be >= 1, got 0
func.func @negative_conv2d_groups_zero(%src: tensor<1x4x8x8xf32>, %wei: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei {groups = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// Each group sees C/groups input channels.
// CHECK: input channels (6) must equal groups (4) * weight input channels (2)
func.func @negative_conv2d_group_channels(%src: tensor<1x6x8x8xf32>, %wei: tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %y = dnn.conv2d %src, %wei {groups = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}

// -----

/// Output channels split evenly into groups.
// CHECK: output channels (6) must be a multiple of groups (4)
func.func @negative_conv2d_output_channels_groups(%src: tensor<1x8x8x8xf32>, %wei: tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %y = dnn.conv2d %src, %wei {groups = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  func.return %y : tensor<1x6x6x6xf32>
}

// -----

/// oneDNN needs the kernel size when it creates the primitive.
// CHECK: kernel size must be static, got wei 4x3x?x3
func.func @negative_conv2d_dynamic_kernel(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x?x3xf32>) -> tensor<1x4x?x6xf32> {
  %y = dnn.conv2d %src, %wei : (tensor<1x3x8x8xf32>, tensor<4x3x?x3xf32>) -> tensor<1x4x?x6xf32>
  func.return %y : tensor<1x4x?x6xf32>
}

// -----

/// The bias has one entry per output channel.
// CHECK: bias size (3) must equal output channels (4)
func.func @negative_conv2d_bias_size(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>, %bias: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei, %bias : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// The bias is a vector.
// CHECK: bias must have rank 1, got rank 2 (1x4)
func.func @negative_conv2d_bias_rank(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>, %bias: tensor<1x4xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei, %bias : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x4xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// Strides are (height, width).
// CHECK: strides must be 2 values >= 1 (height, width), got [1, 1, 1]
func.func @negative_conv2d_strides_length(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei {strides = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// A stride of 0 would never move the window.
// CHECK: strides must be 2 values >= 1 (height, width), got [0, 1]
func.func @negative_conv2d_stride_zero(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei {strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// Padding is never negative (use dnn.slice to crop).
// CHECK: pads_end must be 2 values >= 0 (height, width), got [-1, 0]
func.func @negative_conv2d_negative_pad(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x5x6xf32> {
  %y = dnn.conv2d %src, %wei {pads_end = array<i64: -1, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x6xf32>
  func.return %y : tensor<1x4x5x6xf32>
}

// -----

/// Dilation 1 is dense; 0 is meaningless (oneDNN's 0 is dnn's 1).
// CHECK: dilations must be 2 values >= 1 (height, width), got [0, 0]
func.func @negative_conv2d_dilation_zero(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei {dilations = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// A dilated window larger than the padded input yields no output.
// CHECK: window height (5 with dilation) exceeds the padded input height (4)
func.func @negative_conv2d_window_too_large(%src: tensor<1x3x4x4xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32> {
  %y = dnn.conv2d %src, %wei {dilations = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  func.return %y : tensor<1x4x1x1xf32>
}

// -----

/// Each binary or sum post-op consumes one post-op argument.
// CHECK: has 1 post_args but its post_ops take 0 (one per binary or sum post-op)
func.func @negative_conv2d_post_args_count(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>, %arg: tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei post_args(%arg : tensor<1x4x1x1xf32>) {post_ops = [#dnn.eltwise<relu>]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// oneDNN broadcasts a binary post-op argument only from size-1 dimensions.
// CHECK: post_args[0] 1x2x1x1 does not broadcast to the result 1x4x6x6: each dimension must equal the result's or be 1
func.func @negative_conv2d_binary_post_arg_broadcast(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>, %arg: tensor<1x2x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei post_args(%arg : tensor<1x2x1x1xf32>) {post_ops = [#dnn.binary<add>]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// A binary post-op argument has the result's rank (oneDNN does not align ranks).
// CHECK: post_args[0] 4x1x1 must have the rank of the result 1x4x6x6
func.func @negative_conv2d_binary_post_arg_rank(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>, %arg: tensor<4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei post_args(%arg : tensor<4x1x1xf32>) {post_ops = [#dnn.binary<mul>]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// A sum post-op accumulates into its argument's buffer: same shape.
// CHECK: post_args[0] 1x4x1x1 of a sum post-op must have the result shape 1x4x6x6
func.func @negative_conv2d_sum_post_arg_shape(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>, %arg: tensor<1x4x1x1xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei post_args(%arg : tensor<1x4x1x1xf32>) {post_ops = [#dnn.sum<1.0>]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// ... and same element type and layout.
// CHECK: post_args[0] of a sum post-op has type tensor<1x4x6x6xbf16>, expected the result type tensor<1x4x6x6xf32> (oneDNN accumulates into the result buffer)
func.func @negative_conv2d_sum_post_arg_type(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>, %arg: tensor<1x4x6x6xbf16>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei post_args(%arg : tensor<1x4x6x6xbf16>) {post_ops = [#dnn.sum<1.0>]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// A matmul writes dst through strides, so in any unblocked layout, but not in blocks.
// CHECK: result layout nChw16c must equal the lhs layout nchw: only dnn.reorder changes a layout, or be unblocked (a strided write)
func.func @negative_matmul_blocked_result(%lhs: tensor<1x32x8x8xf32>, %rhs: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<aBcd16b>> {
  %y = dnn.matmul %lhs, %rhs : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<aBcd16b>>
  func.return %y : tensor<1x32x8x8xf32, #dnn.layout<aBcd16b>>
}

// -----

/// matmul needs matrices.
// CHECK: lhs must have rank >= 2 ([..., M, K]), got rank 1 (8)
func.func @negative_matmul_lhs_rank(%lhs: tensor<8xf32>, %rhs: tensor<8x5xf32>) -> tensor<5xf32> {
  %y = dnn.matmul %lhs, %rhs : (tensor<8xf32>, tensor<8x5xf32>) -> tensor<5xf32>
  func.return %y : tensor<5xf32>
}

// -----

/// The inner dimensions agree.
// CHECK: lhs columns (8) must equal rhs rows (7) (K)
func.func @negative_matmul_inner_dim(%lhs: tensor<4x8xf32>, %rhs: tensor<7x5xf32>) -> tensor<4x5xf32> {
  %y = dnn.matmul %lhs, %rhs : (tensor<4x8xf32>, tensor<7x5xf32>) -> tensor<4x5xf32>
  func.return %y : tensor<4x5xf32>
}

// -----

/// Batch dimensions broadcast numpy-style.
// CHECK: batch dimensions 2 and 3 do not broadcast: each dimension pair (aligned from the right) must be equal or contain a 1
func.func @negative_matmul_batch_broadcast(%lhs: tensor<2x4x8xf32>, %rhs: tensor<3x8x5xf32>) -> tensor<2x4x5xf32> {
  %y = dnn.matmul %lhs, %rhs : (tensor<2x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x4x5xf32>
  func.return %y : tensor<2x4x5xf32>
}

// -----

/// The bias broadcasts to the result.
// CHECK: bias 4 does not broadcast to the result 4x5: each dimension must equal the result's or be 1
func.func @negative_matmul_bias_broadcast(%lhs: tensor<4x8xf32>, %rhs: tensor<8x5xf32>, %bias: tensor<4xf32>) -> tensor<4x5xf32> {
  %y = dnn.matmul %lhs, %rhs, %bias : (tensor<4x8xf32>, tensor<8x5xf32>, tensor<4xf32>) -> tensor<4x5xf32>
  func.return %y : tensor<4x5xf32>
}

// -----

/// inner_product weights repeat src's non-batch dimensions.
// CHECK: wei 10x16x2x2 must be [O] followed by the src dimensions after N (16x4x4)
func.func @negative_inner_product_wei_dims(%src: tensor<2x16x4x4xf32>, %wei: tensor<10x16x2x2xf32>) -> tensor<2x10xf32> {
  %y = dnn.inner_product %src, %wei : (tensor<2x16x4x4xf32>, tensor<10x16x2x2xf32>) -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

/// oneDNN's inner product takes 2-D to 5-D src.
// CHECK: src must have rank 2 to 5 ([N, C, ...]), got rank 1 (16)
func.func @negative_inner_product_src_rank(%src: tensor<16xf32>, %wei: tensor<10x16xf32>) -> tensor<16x10xf32> {
  %y = dnn.inner_product %src, %wei : (tensor<16xf32>, tensor<10x16xf32>) -> tensor<16x10xf32>
  func.return %y : tensor<16x10xf32>
}

// -----

/// The pooling kernel is (height, width).
// CHECK: kernel must be 2 values >= 1 (height, width), got [3]
func.func @negative_pool_kernel_length(%src: tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.pool max %src {kernel = array<i64: 3>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// pool is 2-D: src is N, C, H, W.
// CHECK: src must have rank 4 (N, C, H, W), got rank 3 (1x4x8)
func.func @negative_pool_src_rank(%src: tensor<1x4x8xf32>) -> tensor<1x4x6xf32> {
  %y = dnn.pool avg_include_pad %src {kernel = array<i64: 3, 3>} : (tensor<1x4x8xf32>) -> tensor<1x4x6xf32>
  func.return %y : tensor<1x4x6xf32>
}

// -----

/// pool's post-op arguments are checked like conv2d's.
// CHECK: has 0 post_args but its post_ops take 1 (one per binary or sum post-op)
func.func @negative_pool_post_args_count(%src: tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.pool max %src {kernel = array<i64: 3, 3>, post_ops = [#dnn.binary<add>]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// Statistics have one entry per channel.
// CHECK: mean size (4) must equal channels (8)
func.func @negative_batch_norm_mean_size(%src: tensor<1x8x4x4xf32>, %p: tensor<8xf32>, %mean: tensor<4xf32>) -> tensor<1x8x4x4xf32> {
  %y = dnn.batch_norm %src, %p, %p, %mean, %p : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

/// batch_norm needs a channel dimension.
// CHECK: src must have rank >= 2 ([N, C, ...]), got rank 1 (8)
func.func @negative_batch_norm_src_rank(%src: tensor<8xf32>, %p: tensor<8xf32>) -> tensor<8xf32> {
  %y = dnn.batch_norm %src, %p, %p, %p, %p : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %y : tensor<8xf32>
}

// -----

/// batch_norm keeps the src type (its result type is written out, so it is checked).
// CHECK: result shape 1x8x4x5 does not match the inferred shape 1x8x4x4
func.func @negative_batch_norm_result_shape(%src: tensor<1x8x4x4xf32>, %p: tensor<8xf32>) -> tensor<1x8x4x5xf32> {
  %y = dnn.batch_norm %src, %p, %p, %p, %p : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x5xf32>
  func.return %y : tensor<1x8x4x5xf32>
}

// -----

/// layer_norm's scale covers the last axis.
// CHECK: scale size (7) must equal the last src dimension (32)
func.func @negative_layer_norm_scale_size(%src: tensor<2x7x32xf32>, %scale: tensor<7xf32>) -> tensor<2x7x32xf32> {
  %y = dnn.layer_norm %src scale(%scale : tensor<7xf32>) : tensor<2x7x32xf32>
  func.return %y : tensor<2x7x32xf32>
}

// -----

/// The LRN window spans at least one element.
// CHECK: size must be >= 1, got 0
func.func @negative_lrn_size_zero(%src: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = dnn.lrn within_channel %src {size = 0 : i64} : tensor<1x16x8x8xf32>
  func.return %y : tensor<1x16x8x8xf32>
}

// -----

/// LRN needs a channel dimension.
// CHECK: src must have rank >= 2 ([N, C, ...]), got rank 1 (16)
func.func @negative_lrn_src_rank(%src: tensor<16xf32>) -> tensor<16xf32> {
  %y = dnn.lrn across_channels %src {size = 5 : i64} : tensor<16xf32>
  func.return %y : tensor<16xf32>
}

// -----

/// A rank-2 tensor has axes -2..1.
// CHECK: axis 2 is out of range for rank 2: expected -2..1
func.func @negative_softmax_axis_range(%src: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %y = dnn.softmax %src {axis = 2 : i64} : tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

/// log_softmax checks its axis the same way.
// CHECK: axis -3 is out of range for rank 2: expected -2..1
func.func @negative_log_softmax_axis_range(%src: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %y = dnn.log_softmax %src {axis = -3 : i64} : tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

/// A reduction reduces something.
// CHECK: axes must name at least one dimension
func.func @negative_reduce_no_axes(%src: tensor<2x10xf32>) -> tensor<2x10xf32> {
  %y = dnn.reduce sum %src {axes = array<i64>} : (tensor<2x10xf32>) -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

/// -1 and 1 are the same axis of a rank-2 tensor.
// CHECK: axes [1, -1] name a dimension twice
func.func @negative_reduce_repeated_axis(%src: tensor<2x10xf32>) -> tensor<2x1xf32> {
  %y = dnn.reduce sum %src {axes = array<i64: 1, -1>} : (tensor<2x10xf32>) -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}

// -----

/// Reduction axes are in range.
// CHECK: reduction axis 5 is out of range for rank 2: expected -2..1
func.func @negative_reduce_axis_range(%src: tensor<2x10xf32>) -> tensor<2x1xf32> {
  %y = dnn.reduce max %src {axes = array<i64: 5>} : (tensor<2x10xf32>) -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}

// -----

/// A running sum's axis is in range.
// CHECK: axis 2 is out of range for rank 2: expected -2..1
func.func @negative_cumsum_axis_range(%src: tensor<2x10xi64>) -> tensor<2x10xi64> {
  %y = dnn.cumsum %src {axis = 2 : i64} : (tensor<2x10xi64>) -> tensor<2x10xi64>
  func.return %y : tensor<2x10xi64>
}

// -----

/// A running sum keeps its operand's shape.
// CHECK: result shape 2x9 does not match
func.func @negative_cumsum_shape(%src: tensor<2x10xf32>) -> tensor<2x9xf32> {
  %y = dnn.cumsum %src {axis = 1 : i64} : (tensor<2x10xf32>) -> tensor<2x9xf32>
  func.return %y : tensor<2x9xf32>
}

// -----

/// With keep_dims = false the reduced axes disappear.
// CHECK: result shape 2x1 does not match the inferred shape 2
func.func @negative_reduce_keep_dims_shape(%src: tensor<2x10xf32>) -> tensor<2x1xf32> {
  %y = dnn.reduce mean %src {axes = array<i64: 1>, keep_dims = false} : (tensor<2x10xf32>) -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}

// -----

/// binary operands broadcast numpy-style.
// CHECK: shapes 2x3 and 4 do not broadcast: each dimension pair (aligned from the right) must be equal or contain a 1
func.func @negative_binary_broadcast(%lhs: tensor<2x3xf32>, %rhs: tensor<4xf32>) -> tensor<2x3xf32> {
  %y = dnn.binary add %lhs, %rhs : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// binary's post-op arguments are checked like conv2d's.
// CHECK: post_args[0] 1x3 of a sum post-op must have the result shape 2x3
func.func @negative_binary_sum_post_arg_shape(%lhs: tensor<2x3xf32>, %rhs: tensor<2x3xf32>, %arg: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %y = dnn.binary mul %lhs, %rhs post_args(%arg : tensor<1x3xf32>) {post_ops = [#dnn.sum<2.0>]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// One scale per input.
// CHECK: has 1 scales for 2 inputs: expected one per input
func.func @negative_sum_scales_count(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = dnn.sum %a, %b {scales = array<f32: 1.0>} : tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// Sum inputs all have the result type (generic form).
// CHECK: attribute tensor<2x3xf32> expected from variable 'T', but got tensor<3x2xf32>
func.func @negative_sum_input_types(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %y = "dnn.sum"(%a, %b) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// A sum of nothing has no type (generic form).
// CHECK: needs at least one input
func.func @negative_sum_no_inputs() -> tensor<2x3xf32> {
  %y = "dnn.sum"() : () -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// Anchor ops carry exactly one segment size per operand group (generic form).
// CHECK: expected 4 values in operandSegmentSizes, but got 3
func.func @negative_conv2d_segment_sizes(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = "dnn.conv2d"(%src, %wei) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// sdpa: the query heads are a multiple of the key/value heads.
// CHECK: q heads (3) must be a multiple of the key/value heads (2)
func.func @negative_sdpa_heads(%q: tensor<1x3x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x3x4x8xf32> {
  %y = dnn.sdpa %q, %k, %v {scale = 1.0 : f32} : (tensor<1x3x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x3x4x8xf32>
  func.return %y : tensor<1x3x4x8xf32>
}

// -----

/// sdpa: q and k have one head size.
// CHECK: k head size (16) must equal q's (8)
func.func @negative_sdpa_head_size(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %y = dnn.sdpa %q, %k, %v {scale = 1.0 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// sdpa: the mask broadcasts to the scores [B, Hq, L, S].
// CHECK: mask 1x1x4x5 does not broadcast to the scores [B, Hq, L, S] = 1x2x4x6
func.func @negative_sdpa_mask(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %mask: tensor<1x1x4x5xf32>) -> tensor<1x2x4x8xf32> {
  %y = dnn.sdpa %q, %k, %v mask(%mask : tensor<1x1x4x5xf32>) {scale = 1.0 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}
