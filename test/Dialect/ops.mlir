/// Every dnn op parses, verifies and prints back in its custom form, and the generic form
/// (--print-op-generic) parses back to the same custom form. Defaults are left out.
// RUN: dnnc-opt %s --split-input-file | dnnc-opt --split-input-file | filecheck %s
// RUN: dnnc-opt %s --split-input-file --print-op-generic | dnnc-opt --split-input-file | filecheck %s

/// Every option of conv2d: bias, strides, pads, dilations, groups, post-ops with their arguments.
// CHECK-LABEL: func.func @conv2d_all_properties
// CHECK-NEXT:    %y = dnn.conv2d %src, %wei, %bias post_args(%scale, %acc : tensor<1x16x1x1xf32>, tensor<1x16x15x15xf32>) {strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, dilations = array<i64: 2, 2>, groups = 4 : i64, post_ops = [#dnn.eltwise<clip, 0.0, 6.0>, #dnn.binary<mul>, #dnn.sum<0.5>]} : (tensor<1x8x32x32xf32>, tensor<16x2x3x3xf32>, tensor<16xf32>) -> tensor<1x16x15x15xf32>
func.func @conv2d_all_properties(%src: tensor<1x8x32x32xf32>, %wei: tensor<16x2x3x3xf32>, %bias: tensor<16xf32>, %scale: tensor<1x16x1x1xf32>, %acc: tensor<1x16x15x15xf32>) -> tensor<1x16x15x15xf32> {
  %y = dnn.conv2d %src, %wei, %bias post_args(%scale, %acc : tensor<1x16x1x1xf32>, tensor<1x16x15x15xf32>) {strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 0, 0>, dilations = array<i64: 2, 2>, groups = 4 : i64, post_ops = [#dnn.eltwise<clip, 0.0, 6.0>, #dnn.binary<mul>, #dnn.sum<0.5>]} : (tensor<1x8x32x32xf32>, tensor<16x2x3x3xf32>, tensor<16xf32>) -> tensor<1x16x15x15xf32>
  func.return %y : tensor<1x16x15x15xf32>
}

// -----

/// Defaults are left out when printing; no bias, no post-ops.
// CHECK-LABEL: func.func @conv2d_defaults
// CHECK-NEXT:    %y = dnn.conv2d %src, %wei : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x218x218xf32>
func.func @conv2d_defaults(%src: tensor<1x3x224x224xf32>, %wei: tensor<64x3x7x7xf32>) -> tensor<1x64x218x218xf32> {
  %y = dnn.conv2d %src, %wei {strides = array<i64: 1, 1>, groups = 1 : i64, post_ops = []} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x218x218xf32>
  func.return %y : tensor<1x64x218x218xf32>
}

// -----

/// Dynamic batch and spatial dims propagate; blocked layouts on src, weights and result.
// CHECK-LABEL: func.func @conv2d_dynamic_blocked
// CHECK-NEXT:    %y = dnn.conv2d %src, %wei {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<?x16x?x?xf32, #dnn.layout<nChw16c>>, tensor<32x16x3x3xf32, #dnn.layout<OIhw16i16o>>) -> tensor<?x32x?x?xf32, #dnn.layout<nChw16c>>
func.func @conv2d_dynamic_blocked(%src: tensor<?x16x?x?xf32, #dnn.layout<nChw16c>>, %wei: tensor<32x16x3x3xf32, #dnn.layout<OIhw16i16o>>) -> tensor<?x32x?x?xf32, #dnn.layout<nChw16c>> {
  %y = dnn.conv2d %src, %wei {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<?x16x?x?xf32, #dnn.layout<nChw16c>>, tensor<32x16x3x3xf32, #dnn.layout<OIhw16i16o>>) -> tensor<?x32x?x?xf32, #dnn.layout<nChw16c>>
  func.return %y : tensor<?x32x?x?xf32, #dnn.layout<nChw16c>>
}

// -----

/// deconv2d: stride 2 with output_padding 1 (pads_end 1 - 1 = 0 at the top, -1 at the end
/// of the width), groups, bias, a fused relu; a dynamic batch propagates.
// CHECK-LABEL: func.func @deconv2d_all_properties
// CHECK-NEXT:    %y = dnn.deconv2d %src, %wei, %bias {strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, -1>, groups = 2 : i64, post_ops = [#dnn.eltwise<relu>]} : (tensor<?x8x5x5xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x6x9x11xf32>
func.func @deconv2d_all_properties(%src: tensor<?x8x5x5xf32>, %wei: tensor<6x4x3x3xf32>, %bias: tensor<6xf32>) -> tensor<?x6x9x11xf32> {
  %y = dnn.deconv2d %src, %wei, %bias {strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, -1>, groups = 2 : i64, post_ops = [#dnn.eltwise<relu>]} : (tensor<?x8x5x5xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x6x9x11xf32>
  func.return %y : tensor<?x6x9x11xf32>
}

// -----

/// gather_elements: int64 indices of src's rank, smaller than src off the axis.
// CHECK-LABEL: func.func @gather_elements
// CHECK-NEXT:    %y = dnn.gather_elements %src[%idx] {axis = 1 : i64} : (tensor<2x5x3xf32>, tensor<2x4x2xi64>) -> tensor<2x4x2xf32>
func.func @gather_elements(%src: tensor<2x5x3xf32>, %idx: tensor<2x4x2xi64>) -> tensor<2x4x2xf32> {
  %y = dnn.gather_elements %src[%idx] {axis = 1 : i64} : (tensor<2x5x3xf32>, tensor<2x4x2xi64>) -> tensor<2x4x2xf32>
  func.return %y : tensor<2x4x2xf32>
}

// -----

/// A layout written as a oneDNN tag prints as its conventional name.
// CHECK-LABEL: func.func @layout_tag_spelling
// CHECK-NEXT:    %y = dnn.reorder %src : (tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
func.func @layout_tag_spelling(%src: tensor<1x16x4x4xf32, #dnn.layout<aBcd16b>>) -> tensor<1x16x4x4xf32, #dnn.layout<acdb>> {
  %y = dnn.reorder %src : (tensor<1x16x4x4xf32, #dnn.layout<aBcd16b>>) -> tensor<1x16x4x4xf32, #dnn.layout<acdb>>
  func.return %y : tensor<1x16x4x4xf32, #dnn.layout<acdb>>
}

// -----

/// Batched matmul with broadcast batch dims, a bias and an eltwise post-op.
// CHECK-LABEL: func.func @matmul_bias_post_op
// CHECK-NEXT:    %y = dnn.matmul %lhs, %rhs, %bias {post_ops = [#dnn.eltwise<gelu_tanh>]} : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>, tensor<1x5xf32>) -> tensor<2x3x4x5xf32>
func.func @matmul_bias_post_op(%lhs: tensor<2x1x4x8xf32>, %rhs: tensor<3x8x5xf32>, %bias: tensor<1x5xf32>) -> tensor<2x3x4x5xf32> {
  %y = dnn.matmul %lhs, %rhs, %bias {post_ops = [#dnn.eltwise<gelu_tanh>]} : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>, tensor<1x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %y : tensor<2x3x4x5xf32>
}

// -----

/// Integer matmul: the result follows lhs's element type.
// CHECK-LABEL: func.func @matmul_int8
// CHECK-NEXT:    %y = dnn.matmul %lhs, %rhs : (tensor<4x8xui8>, tensor<8x5xi8>) -> tensor<4x5xui8>
func.func @matmul_int8(%lhs: tensor<4x8xui8>, %rhs: tensor<8x5xi8>) -> tensor<4x5xui8> {
  %y = dnn.matmul %lhs, %rhs : (tensor<4x8xui8>, tensor<8x5xi8>) -> tensor<4x5xui8>
  func.return %y : tensor<4x5xui8>
}

// -----

/// Matmul without bias but with a binary post-op argument.
// CHECK-LABEL: func.func @matmul_post_arg
// CHECK-NEXT:    %y = dnn.matmul %lhs, %rhs post_args(%arg : tensor<1x5xbf16>) {post_ops = [#dnn.binary<add>]} : (tensor<?x8xbf16>, tensor<8x5xbf16>) -> tensor<?x5xbf16>
func.func @matmul_post_arg(%lhs: tensor<?x8xbf16>, %rhs: tensor<8x5xbf16>, %arg: tensor<1x5xbf16>) -> tensor<?x5xbf16> {
  %y = dnn.matmul %lhs, %rhs post_args(%arg : tensor<1x5xbf16>) {post_ops = [#dnn.binary<add>]} : (tensor<?x8xbf16>, tensor<8x5xbf16>) -> tensor<?x5xbf16>
  func.return %y : tensor<?x5xbf16>
}

// -----

/// Inner product over a 4-D src, with bias and a relu post-op.
// CHECK-LABEL: func.func @inner_product
// CHECK-NEXT:    %y = dnn.inner_product %src, %wei, %bias {post_ops = [#dnn.eltwise<relu>]} : (tensor<2x16x4x4xf32>, tensor<10x16x4x4xf32>, tensor<10xf32>) -> tensor<2x10xf32>
func.func @inner_product(%src: tensor<2x16x4x4xf32>, %wei: tensor<10x16x4x4xf32>, %bias: tensor<10xf32>) -> tensor<2x10xf32> {
  %y = dnn.inner_product %src, %wei, %bias {post_ops = [#dnn.eltwise<relu>]} : (tensor<2x16x4x4xf32>, tensor<10x16x4x4xf32>, tensor<10xf32>) -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

/// Max pooling 3x3 stride 2 pad 1 (the ResNet stem).
// CHECK-LABEL: func.func @pool_max
// CHECK-NEXT:    %y = dnn.pool max %src {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
func.func @pool_max(%src: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %y = dnn.pool max %src {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  func.return %y : tensor<1x64x56x56xf32>
}

// -----

/// Average pooling with dilation, a post-op and its argument.
// CHECK-LABEL: func.func @pool_avg_post_op
// CHECK-NEXT:    %y = dnn.pool avg_exclude_pad %src post_args(%arg : tensor<1x4x1x1xf16>) {kernel = array<i64: 3, 3>, dilations = array<i64: 2, 2>, post_ops = [#dnn.binary<sub>]} : (tensor<1x4x9x9xf16>) -> tensor<1x4x5x5xf16>
func.func @pool_avg_post_op(%src: tensor<1x4x9x9xf16>, %arg: tensor<1x4x1x1xf16>) -> tensor<1x4x5x5xf16> {
  %y = dnn.pool avg_exclude_pad %src post_args(%arg : tensor<1x4x1x1xf16>) {kernel = array<i64: 3, 3>, dilations = array<i64: 2, 2>, post_ops = [#dnn.binary<sub>]} : (tensor<1x4x9x9xf16>) -> tensor<1x4x5x5xf16>
  func.return %y : tensor<1x4x5x5xf16>
}

// -----

/// Batch norm: epsilon printed only when not the default 1e-5.
// CHECK-LABEL: func.func @batch_norm
// CHECK-NEXT:    %y = dnn.batch_norm %src, %scale, %shift, %mean, %variance {epsilon = 1.000000e-03 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
func.func @batch_norm(%src: tensor<1x8x4x4xf32>, %scale: tensor<8xf32>, %shift: tensor<8xf32>, %mean: tensor<8xf32>, %variance: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %y = dnn.batch_norm %src, %scale, %shift, %mean, %variance {epsilon = 1.0e-3 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

/// Layer norm with scale and shift.
// CHECK-LABEL: func.func @layer_norm_scale_shift
// CHECK-NEXT:    %y = dnn.layer_norm %src scale(%scale : tensor<32xf32>) shift(%shift : tensor<32xf32>) : tensor<2x7x32xf32>
func.func @layer_norm_scale_shift(%src: tensor<2x7x32xf32>, %scale: tensor<32xf32>, %shift: tensor<32xf32>) -> tensor<2x7x32xf32> {
  %y = dnn.layer_norm %src scale(%scale : tensor<32xf32>) shift(%shift : tensor<32xf32>) {epsilon = 1.0e-5 : f32} : tensor<2x7x32xf32>
  func.return %y : tensor<2x7x32xf32>
}

// -----

/// Layer norm with a shift only: the two optional operands stay apart.
// CHECK-LABEL: func.func @layer_norm_shift_only
// CHECK-NEXT:    %y = dnn.layer_norm %src shift(%shift : tensor<32xf32>) : tensor<2x7x32xf32>
func.func @layer_norm_shift_only(%src: tensor<2x7x32xf32>, %shift: tensor<32xf32>) -> tensor<2x7x32xf32> {
  %y = dnn.layer_norm %src shift(%shift : tensor<32xf32>) : tensor<2x7x32xf32>
  func.return %y : tensor<2x7x32xf32>
}

// -----

/// LRN across channels with non-default constants.
// CHECK-LABEL: func.func @lrn
// CHECK-NEXT:    %y = dnn.lrn across_channels %src {size = 5 : i64, alpha = 2.000000e-04 : f32, k = 2.000000e+00 : f32} : tensor<1x16x8x8xf32>
func.func @lrn(%src: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %y = dnn.lrn across_channels %src {size = 5 : i64, alpha = 2.0e-4 : f32, beta = 0.75 : f32, k = 2.0 : f32} : tensor<1x16x8x8xf32>
  func.return %y : tensor<1x16x8x8xf32>
}

// -----

/// Softmax on a negative axis, log-softmax on a positive one.
// CHECK-LABEL: func.func @softmax_log_softmax
// CHECK-NEXT:    %y = dnn.softmax %src {axis = -1 : i64} : tensor<2x10xf32>
// CHECK-NEXT:    %z = dnn.log_softmax %src {axis = 1 : i64} : tensor<2x10xf32>
func.func @softmax_log_softmax(%src: tensor<2x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xf32>) {
  %y = dnn.softmax %src {axis = -1 : i64} : tensor<2x10xf32>
  %z = dnn.log_softmax %src {axis = 1 : i64} : tensor<2x10xf32>
  func.return %y, %z : tensor<2x10xf32>, tensor<2x10xf32>
}

// -----

/// Attention: grouped heads (4 on 2) with a padding mask and causal; and without a mask, the
/// defaults (causal, nan_to_zero false) left out.
// CHECK-LABEL: func.func @sdpa
// CHECK-NEXT:    %y = dnn.sdpa %q, %k, %v mask(%mask : tensor<2x1x1x6xf32>) {scale = 1.250000e-01 : f32, causal = true, nan_to_zero = true} : (tensor<2x4x3x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x16xf32>) -> tensor<2x4x3x16xf32>
// CHECK-NEXT:    %z = dnn.sdpa %q, %k, %v {scale = 1.000000e+00 : f32} : (tensor<2x4x3x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x16xf32>) -> tensor<2x4x3x16xf32>
func.func @sdpa(%q: tensor<2x4x3x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x16xf32>, %mask: tensor<2x1x1x6xf32>) -> (tensor<2x4x3x16xf32>, tensor<2x4x3x16xf32>) {
  %y = dnn.sdpa %q, %k, %v mask(%mask : tensor<2x1x1x6xf32>) {scale = 0.125 : f32, causal = true, nan_to_zero = true} : (tensor<2x4x3x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x16xf32>) -> tensor<2x4x3x16xf32>
  %z = dnn.sdpa %q, %k, %v {scale = 1.0 : f32, causal = false} : (tensor<2x4x3x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x16xf32>) -> tensor<2x4x3x16xf32>
  func.return %y, %z : tensor<2x4x3x16xf32>, tensor<2x4x3x16xf32>
}

// -----

/// Reductions keeping and dropping the reduced dims.
// CHECK-LABEL: func.func @reduce
// CHECK-NEXT:    %y = dnn.reduce mean %src {axes = array<i64: 2, -1>} : (tensor<1x8x4x?xf32>) -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %z = dnn.reduce max %src {axes = array<i64: 0, 3>, keep_dims = false} : (tensor<1x8x4x?xf32>) -> tensor<8x4xf32>
func.func @reduce(%src: tensor<1x8x4x?xf32>) -> (tensor<1x8x1x1xf32>, tensor<8x4xf32>) {
  %y = dnn.reduce mean %src {axes = array<i64: 2, -1>, keep_dims = true} : (tensor<1x8x4x?xf32>) -> tensor<1x8x1x1xf32>
  %z = dnn.reduce max %src {axes = array<i64: 0, 3>, keep_dims = false} : (tensor<1x8x4x?xf32>) -> tensor<8x4xf32>
  func.return %y, %z : tensor<1x8x1x1xf32>, tensor<8x4xf32>
}

// -----

/// Running sums: exclusive and reverse default to false and print only when true.
// CHECK-LABEL: func.func @cumsum
// CHECK-NEXT:    %y = dnn.cumsum %ids {axis = 1 : i64} : (tensor<2x?xi32>) -> tensor<2x?xi32>
// CHECK-NEXT:    %z = dnn.cumsum %x {axis = -1 : i64, exclusive = true, reverse = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @cumsum(%ids: tensor<2x?xi32>, %x: tensor<2x3xf32>) -> (tensor<2x?xi32>, tensor<2x3xf32>) {
  %y = dnn.cumsum %ids {axis = 1 : i64, exclusive = false, reverse = false} : (tensor<2x?xi32>) -> tensor<2x?xi32>
  %z = dnn.cumsum %x {axis = -1 : i64, exclusive = true, reverse = true} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y, %z : tensor<2x?xi32>, tensor<2x3xf32>
}

// -----

/// Eltwise with and without alpha/beta, on a blocked layout; a kernel-type attribute rides along.
// CHECK-LABEL: func.func @eltwise
// CHECK-NEXT:    %a = dnn.eltwise relu %src {dnn.kernel = #dnn.kernel<onednn, f32>} : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
// CHECK-NEXT:    %b = dnn.eltwise hardswish %a {dnn.kernel = #dnn.kernel<reference, bf16>, alpha = 5.000000e-01 : f32, beta = 2.500000e-01 : f32} : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
func.func @eltwise(%src: tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>> {
  %a = dnn.eltwise relu %src {alpha = 0.0 : f32, dnn.kernel = #dnn.kernel<onednn, f32>} : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  %b = dnn.eltwise hardswish %a {alpha = 0.5 : f32, beta = 0.25 : f32, dnn.kernel = #dnn.kernel<reference, bf16>} : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  func.return %b : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
}

// -----

/// Binary with numpy broadcasting and a post-op chain.
// CHECK-LABEL: func.func @binary
// CHECK-NEXT:    %y = dnn.binary add %lhs, %rhs post_args(%arg : tensor<1x1x1xf32>) {post_ops = [#dnn.binary<max>, #dnn.eltwise<leaky_relu, 0.1>]} : (tensor<2x1x5xf32>, tensor<4x1xf32>) -> tensor<2x4x5xf32>
func.func @binary(%lhs: tensor<2x1x5xf32>, %rhs: tensor<4x1xf32>, %arg: tensor<1x1x1xf32>) -> tensor<2x4x5xf32> {
  %y = dnn.binary add %lhs, %rhs post_args(%arg : tensor<1x1x1xf32>) {post_ops = [#dnn.binary<max>, #dnn.eltwise<leaky_relu, 0.1>]} : (tensor<2x1x5xf32>, tensor<4x1xf32>) -> tensor<2x4x5xf32>
  func.return %y : tensor<2x4x5xf32>
}

// -----

/// Sum of three inputs, with and without scales.
// CHECK-LABEL: func.func @sum
// CHECK-NEXT:    %y = dnn.sum %a, %b, %c {scales = array<f32: 1.000000e+00, 5.000000e-01, 2.000000e+00>} : tensor<2x3xf32>
// CHECK-NEXT:    %z = dnn.sum %a, %b : tensor<2x3xf32>
func.func @sum(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = dnn.sum %a, %b, %c {scales = array<f32: 1.0, 0.5, 2.0>} : tensor<2x3xf32>
  %z = dnn.sum %a, %b : tensor<2x3xf32>
  func.return %y, %z : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

/// Concat along channels, including a dynamic input size.
// CHECK-LABEL: func.func @concat
// CHECK-NEXT:    %y = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<1x5x4x4xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %z = dnn.concat %a, %c {axis = -3 : i64} : (tensor<1x3x4x4xf32>, tensor<1x?x4x4xf32>) -> tensor<1x?x4x4xf32>
func.func @concat(%a: tensor<1x3x4x4xf32>, %b: tensor<1x5x4x4xf32>, %c: tensor<1x?x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x?x4x4xf32>) {
  %y = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<1x5x4x4xf32>) -> tensor<1x8x4x4xf32>
  %z = dnn.concat %a, %c {axis = -3 : i64} : (tensor<1x3x4x4xf32>, tensor<1x?x4x4xf32>) -> tensor<1x?x4x4xf32>
  func.return %y, %z : tensor<1x8x4x4xf32>, tensor<1x?x4x4xf32>
}

// -----

/// Slice with and without steps.
// CHECK-LABEL: func.func @slice
// CHECK-NEXT:    %y = dnn.slice %src {starts = array<i64: 0, 4, 0, 0>, ends = array<i64: 1, 8, 10, 10>} : (tensor<1x8x10x10xf32>) -> tensor<1x4x10x10xf32>
// CHECK-NEXT:    %z = dnn.slice %src {starts = array<i64: 0, 0, 1, 0>, ends = array<i64: 1, 8, 9, 9>, steps = array<i64: 1, 1, 2, 3>} : (tensor<1x8x10x10xf32>) -> tensor<1x8x4x3xf32>
func.func @slice(%src: tensor<1x8x10x10xf32>) -> (tensor<1x4x10x10xf32>, tensor<1x8x4x3xf32>) {
  %y = dnn.slice %src {starts = array<i64: 0, 4, 0, 0>, ends = array<i64: 1, 8, 10, 10>} : (tensor<1x8x10x10xf32>) -> tensor<1x4x10x10xf32>
  %z = dnn.slice %src {starts = array<i64: 0, 0, 1, 0>, ends = array<i64: 1, 8, 9, 9>, steps = array<i64: 1, 1, 2, 3>} : (tensor<1x8x10x10xf32>) -> tensor<1x8x4x3xf32>
  func.return %y, %z : tensor<1x4x10x10xf32>, tensor<1x8x4x3xf32>
}

// -----

/// Reshape (flatten) and transpose (to channels-last order).
// CHECK-LABEL: func.func @reshape_transpose
// CHECK-NEXT:    %y = dnn.reshape %src : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
// CHECK-NEXT:    %z = dnn.transpose %src {permutation = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
func.func @reshape_transpose(%src: tensor<2x3x4x5xf32>) -> (tensor<2x60xf32>, tensor<2x4x5x3xf32>) {
  %y = dnn.reshape %src : (tensor<2x3x4x5xf32>) -> tensor<2x60xf32>
  %z = dnn.transpose %src {permutation = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
  func.return %y, %z : tensor<2x60xf32>, tensor<2x4x5x3xf32>
}

// -----

/// top_k: default axis -1, largest and sorted; then smallest along axis 0 unsorted.
// CHECK-LABEL: func.func @top_k
// CHECK-NEXT:    %v, %i = dnn.top_k %src {k = 3 : i64} : (tensor<6x10xf32>) -> (tensor<6x3xf32>, tensor<6x3xi64>)
// CHECK-NEXT:    %w, %w_1 = dnn.top_k %src {k = 2 : i64, axis = 0 : i64, largest = false, sorted = false} : (tensor<6x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xi64>)
func.func @top_k(%src: tensor<6x10xf32>) -> (tensor<6x3xf32>, tensor<6x3xi64>, tensor<2x10xf32>, tensor<2x10xi64>) {
  %v, %i = dnn.top_k %src {k = 3 : i64, axis = -1 : i64, largest = true, sorted = true} : (tensor<6x10xf32>) -> (tensor<6x3xf32>, tensor<6x3xi64>)
  %w:2 = dnn.top_k %src {k = 2 : i64, axis = 0 : i64, largest = false, sorted = false} : (tensor<6x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xi64>)
  func.return %v, %i, %w#0, %w#1 : tensor<6x3xf32>, tensor<6x3xi64>, tensor<2x10xf32>, tensor<2x10xi64>
}

// -----

/// Reorder into a blocked layout and cast to bf16 keeping it.
// CHECK-LABEL: func.func @reorder_cast
// CHECK-NEXT:    %r = dnn.reorder %src : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>
// CHECK-NEXT:    %c = dnn.cast %r : (tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>) -> tensor<1x32x8x8xbf16, #dnn.layout<nChw16c>>
func.func @reorder_cast(%src: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xbf16, #dnn.layout<nChw16c>> {
  %r = dnn.reorder %src : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>
  %c = dnn.cast %r : (tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>) -> tensor<1x32x8x8xbf16, #dnn.layout<nChw16c>>
  func.return %c : tensor<1x32x8x8xbf16, #dnn.layout<nChw16c>>
}

// -----

/// Inline constants: splat, explicit values, integer.
// CHECK-LABEL: func.func @constant
// CHECK-NEXT:    %a = dnn.constant dense<1.500000e+00> : tensor<4xf32>
// CHECK-NEXT:    %b = dnn.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %c = dnn.constant dense<[1, 2, 3]> : tensor<3xi32>
func.func @constant() -> (tensor<4xf32>, tensor<2x2xf32>, tensor<3xi32>) {
  %a = dnn.constant dense<1.5> : tensor<4xf32>
  %b = dnn.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = dnn.constant dense<[1, 2, 3]> : tensor<3xi32>
  func.return %a, %b, %c : tensor<4xf32>, tensor<2x2xf32>, tensor<3xi32>
}

// -----

/// Weights from an .npz (with a key) and an .npy (without).
// CHECK-LABEL: func.func @weight
// CHECK-NEXT:    %w = dnn.weight "weights.npz", "conv1.wei" : tensor<16x16x3x3xf32>
// CHECK-NEXT:    %b = dnn.weight "bias.npy" : tensor<16xf32>
func.func @weight() -> (tensor<16x16x3x3xf32>, tensor<16xf32>) {
  %w = dnn.weight "weights.npz", "conv1.wei" : tensor<16x16x3x3xf32>
  %b = dnn.weight "bias.npy" : tensor<16xf32>
  func.return %w, %b : tensor<16x16x3x3xf32>, tensor<16xf32>
}

// -----

/// gather: an embedding lookup (i64 ids) and a scalar index select along axis 1.
// CHECK-LABEL: func.func @gather
// CHECK-NEXT:    %e = dnn.gather %w[%ids] : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
// CHECK-NEXT:    %c = dnn.gather %w[%i] {axis = 1 : i64} : (tensor<10x4xf32>, tensor<i32>) -> tensor<10xf32>
func.func @gather(%w: tensor<10x4xf32>, %ids: tensor<2x5xi64>, %i: tensor<i32>) -> (tensor<2x5x4xf32>, tensor<10xf32>) {
  %e = dnn.gather %w[%ids] : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5x4xf32>
  %c = dnn.gather %w[%i] {axis = 1 : i64} : (tensor<10x4xf32>, tensor<i32>) -> tensor<10xf32>
  func.return %e, %c : tensor<2x5x4xf32>, tensor<10xf32>
}

// -----

/// compare and logical give i1; where picks by an i1 condition; expand broadcasts.
// CHECK-LABEL: func.func @mask
// CHECK-NEXT:    %on = dnn.compare ne %m, %zero : (tensor<2x4xi64>, tensor<1x1xi64>) -> tensor<2x4xi1>
// CHECK-NEXT:    %both = dnn.logical and %on, %on : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
// CHECK-NEXT:    %e = dnn.expand %both {shape = array<i64: 3, 1, 1>} : (tensor<2x4xi1>) -> tensor<3x2x4xi1>
// CHECK-NEXT:    %w = dnn.where %e, %s, %t : (tensor<3x2x4xi1>, tensor<3x2x4xf32>, tensor<1x1x1xf32>) -> tensor<3x2x4xf32>
func.func @mask(%m: tensor<2x4xi64>, %zero: tensor<1x1xi64>, %s: tensor<3x2x4xf32>, %t: tensor<1x1x1xf32>) -> tensor<3x2x4xf32> {
  %on = dnn.compare ne %m, %zero : (tensor<2x4xi64>, tensor<1x1xi64>) -> tensor<2x4xi1>
  %both = dnn.logical and %on, %on : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %e = dnn.expand %both {shape = array<i64: 3, 1, 1>} : (tensor<2x4xi1>) -> tensor<3x2x4xi1>
  %w = dnn.where %e, %s, %t : (tensor<3x2x4xi1>, tensor<3x2x4xf32>, tensor<1x1x1xf32>) -> tensor<3x2x4xf32>
  func.return %w : tensor<3x2x4xf32>
}

// -----

/// quantize and dequantize per tensor (rank-0 scale) and per axis (rank-1 scale and an axis);
/// dynamic_quantize gives the value, its scale and its zero point.
// CHECK-LABEL: func.func @quantization
// CHECK-NEXT:    %q = dnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
// CHECK-NEXT:    %d = dnn.dequantize %q, %s, %z : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
// CHECK-NEXT:    %qc = dnn.quantize %d, %sc, %zc {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
// CHECK-NEXT:    %dc = dnn.dequantize %qc, %sc, %zc {axis = -1 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
// CHECK-NEXT:    %y, %ys, %yz = dnn.dynamic_quantize %dc : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
func.func @quantization(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<ui8>, %sc: tensor<3xf32>, %zc: tensor<3xi8>) -> tensor<2x3xui8> {
  %q = dnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  %d = dnn.dequantize %q, %s, %z : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %qc = dnn.quantize %d, %sc, %zc {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  %dc = dnn.dequantize %qc, %sc, %zc {axis = -1 : i64} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  %y, %ys, %yz = dnn.dynamic_quantize %dc : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  func.return %y : tensor<2x3xui8>
}

// -----

/// qconv2d: src, weights, the five scales and zero points, then the optional bias.
// CHECK-LABEL: func.func @qconv2d
// CHECK-NEXT:    %y = dnn.qconv2d %x, %w, %s, %z, %ws, %s, %zd, %b {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, post_ops = [#dnn.eltwise<relu>]} : (tensor<1x4x3x3xui8>, tensor<8x4x3x3xi8>, tensor<f32>, tensor<ui8>, tensor<8xf32>, tensor<f32>, tensor<i32>, tensor<8xf32>) -> tensor<1x8x3x3xi8>
func.func @qconv2d(%x: tensor<1x4x3x3xui8>, %w: tensor<8x4x3x3xi8>, %s: tensor<f32>, %z: tensor<ui8>, %ws: tensor<8xf32>, %zd: tensor<i32>, %b: tensor<8xf32>) -> tensor<1x8x3x3xi8> {
  %y = dnn.qconv2d %x, %w, %s, %z, %ws, %s, %zd, %b {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, post_ops = [#dnn.eltwise<relu>]} : (tensor<1x4x3x3xui8>, tensor<8x4x3x3xi8>, tensor<f32>, tensor<ui8>, tensor<8xf32>, tensor<f32>, tensor<i32>, tensor<8xf32>) -> tensor<1x8x3x3xi8>
  func.return %y : tensor<1x8x3x3xi8>
}

// -----

/// qmatmul: src, weights, src scale and zero point, weights scale, then the optional
/// weights zero point, dst scale and zero point (a quantized result) and bias.
// CHECK-LABEL: func.func @qmatmul
// CHECK-NEXT:    %y = dnn.qmatmul %x, %w, %s, %z, %ws dst(%s, %zd : tensor<f32>, tensor<i8>) bias(%b : tensor<8xf32>) {post_ops = [#dnn.eltwise<relu>]} : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<8xf32>) -> tensor<4x8xi8>
// CHECK-NEXT:    %f = dnn.qmatmul %x, %w, %s, %z, %s wei_zero_point(%zd : tensor<i8>) : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<4x8xf32>
func.func @qmatmul(%x: tensor<4x16xui8>, %w: tensor<16x8xi8>, %s: tensor<f32>, %z: tensor<ui8>, %ws: tensor<8xf32>, %zd: tensor<i8>, %b: tensor<8xf32>) -> (tensor<4x8xi8>, tensor<4x8xf32>) {
  %y = dnn.qmatmul %x, %w, %s, %z, %ws dst(%s, %zd : tensor<f32>, tensor<i8>) bias(%b : tensor<8xf32>) {post_ops = [#dnn.eltwise<relu>]} : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<8xf32>) -> tensor<4x8xi8>
  %f = dnn.qmatmul %x, %w, %s, %z, %s wei_zero_point(%zd : tensor<i8>) : (tensor<4x16xui8>, tensor<16x8xi8>, tensor<f32>, tensor<ui8>, tensor<f32>) -> tensor<4x8xf32>
  func.return %y, %f : tensor<4x8xi8>, tensor<4x8xf32>
}

// -----

/// A post-op's unbounded clip (ONNX Clip without a min imports as clip(-inf, max)) prints its
/// bounds as inf / -inf and parses them back.
// CHECK-LABEL: func.func @post_op_infinite_bounds
// CHECK-NEXT:    %y = dnn.matmul %x, %w {post_ops = [#dnn.eltwise<clip, -inf, 1.0>, #dnn.eltwise<clip, 0.0, inf>]} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
func.func @post_op_infinite_bounds(%x: tensor<2x4xf32>, %w: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %y = dnn.matmul %x, %w {post_ops = [#dnn.eltwise<clip, -inf, 1.0>, #dnn.eltwise<clip, 0.0, inf>]} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
