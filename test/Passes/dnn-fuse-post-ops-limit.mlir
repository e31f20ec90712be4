// RUN: dnnc-opt %s -p 'dnn-fuse-post-ops{max-post-ops=2}' --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p 'dnn-fuse-post-ops{max-post-ops=2}' --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: not dnnc-opt %s -p 'dnn-fuse-post-ops{max-post-ops=33}' 2>&1 | filecheck %s --check-prefix=LIMIT

// LIMIT: error: invalid options for pass 'dnn-fuse-post-ops': max-post-ops=33 is outside 1 to 32 (oneDNN's limit)

/// With max-post-ops=2 the third post-op stays a separate op.
// CHECK-LABEL: func.func @negative_chain_beyond_max_post_ops
// CHECK:         %[[Y:.*]] = dnn.conv2d %src, %wei post_args(%bias : tensor<1x8x1x1xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<add>, #dnn.eltwise<relu>]
// CHECK:         dnn.eltwise tanh %[[Y]]
// REMARK: dnn-fuse-post-ops-limit.mlir:[[# @LINE + 5]]:3: remark: [dnn-fuse-post-ops] not fused: the chain would have 3 post-ops, more than max-post-ops=2
func.func @negative_chain_beyond_max_post_ops(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>, %bias: tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %b = dnn.binary add %c, %bias : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %r = dnn.eltwise relu %b : tensor<1x8x4x4xf32>
  %t = dnn.eltwise tanh %r : tensor<1x8x4x4xf32>
  func.return %t : tensor<1x8x4x4xf32>
}

// -----

/// A merged eltwise takes no new slot: relu then clip(0, 6) still fits in two.
// CHECK-LABEL: func.func @chain_merge_within_max_post_ops
// CHECK:         dnn.conv2d %src, %wei post_args(%bias : tensor<1x8x1x1xf32>)
// CHECK-SAME:      post_ops = [#dnn.binary<add>, #dnn.eltwise<relu6>]
// CHECK-NOT:     dnn.eltwise
func.func @chain_merge_within_max_post_ops(%src: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>, %bias: tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %b = dnn.binary add %c, %bias : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %r = dnn.eltwise relu %b : tensor<1x8x4x4xf32>
  %k = dnn.eltwise clip %r {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<1x8x4x4xf32>
  func.return %k : tensor<1x8x4x4xf32>
}
