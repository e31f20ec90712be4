// RUN: dnnc-opt %s -p dnn-propagate-special-values --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-propagate-special-values --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: dnnc-opt %s -p dnn-propagate-special-values,dnn-fuse-post-ops,dnn-select-kernels --split-input-file | filecheck %s --check-prefix=FUSED

/// relu (slope 0) becomes elu with alpha 0: the same values with NaN kept. A leaky relu with a
/// nonzero slope already keeps NaN and stays; so do algorithms oneDNN computes as ONNX does.
// CHECK-LABEL: func.func @relu_becomes_elu
// CHECK-NEXT:    %r = dnn.eltwise elu %x : tensor<2x8xf32>
// CHECK-NEXT:    %l = dnn.eltwise leaky_relu %r {alpha = 1.000000e-01 : f32} : tensor<2x8xf32>
// CHECK-NEXT:    %t = dnn.eltwise tanh %l : tensor<2x8xf32>
// CHECK-NEXT:    func.return %t
func.func @relu_becomes_elu(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = dnn.eltwise relu %x : tensor<2x8xf32>
  %l = dnn.eltwise leaky_relu %r {alpha = 0.1 : f32} : tensor<2x8xf32>
  %t = dnn.eltwise tanh %l : tensor<2x8xf32>
  func.return %t : tensor<2x8xf32>
}

// -----

/// clip, exp, softmax, log_softmax and lrn drop NaN in oneDNN: each is pinned to its reference
/// kernel, with a remark saying how oneDNN's differs; sigmoid is not.
// CHECK-LABEL: func.func @pinned_to_reference
// CHECK-NEXT:    %c = dnn.eltwise clip %x {dnn.kernel = #dnn.kernel<reference, f32>, beta = 6.000000e+00 : f32} : tensor<1x16x4x4xf32>
// CHECK-NEXT:    %e = dnn.eltwise exp %c {dnn.kernel = #dnn.kernel<reference, f32>} : tensor<1x16x4x4xf32>
// CHECK-NEXT:    %s = dnn.softmax %e {dnn.kernel = #dnn.kernel<reference, f32>, axis = 1 : i64} : tensor<1x16x4x4xf32>
// CHECK-NEXT:    %g = dnn.log_softmax %s {dnn.kernel = #dnn.kernel<reference, f32>, axis = 3 : i64} : tensor<1x16x4x4xf32>
// CHECK-NEXT:    %n = dnn.lrn across_channels %g {dnn.kernel = #dnn.kernel<reference, f32>, size = 5 : i64} : tensor<1x16x4x4xf32>
// CHECK-NEXT:    %y = dnn.eltwise sigmoid %n : tensor<1x16x4x4xf32>
// REMARK: dnn-propagate-special-values.mlir:[[# @LINE + 3]]:3: remark: [dnn-propagate-special-values] runs its reference kernel: oneDNN's differs on special values, clip(NaN) = its lower bound
// REMARK: dnn-propagate-special-values.mlir:[[# @LINE + 4]]:3: remark: [dnn-propagate-special-values] runs its reference kernel: oneDNN's differs on special values, a row holding NaN or +inf is not all NaN
func.func @pinned_to_reference(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %c = dnn.eltwise clip %x {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<1x16x4x4xf32>
  %e = dnn.eltwise exp %c : tensor<1x16x4x4xf32>
  %s = dnn.softmax %e {axis = 1 : i64} : tensor<1x16x4x4xf32>
  %g = dnn.log_softmax %s {axis = 3 : i64} : tensor<1x16x4x4xf32>
  %n = dnn.lrn across_channels %g {size = 5 : i64} : tensor<1x16x4x4xf32>
  %y = dnn.eltwise sigmoid %n : tensor<1x16x4x4xf32>
  func.return %y : tensor<1x16x4x4xf32>
}

// -----

/// Fusion afterwards: the elu is fused into the convolution as a post-op, the pinned clip is
/// not (dnn-fuse-post-ops says why) and dnn-select-kernels keeps its pin.
// FUSED-LABEL: func.func @fusion_after
// FUSED:         %r = dnn.conv2d %x, %w {dnn.kernel = #dnn.kernel<onednn, f32>, post_ops = [#dnn.eltwise<elu>]}
// FUSED:         %k = dnn.eltwise clip %d {dnn.kernel = #dnn.kernel<reference, f32>
func.func @fusion_after(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %c = dnn.conv2d %x, %w : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %r = dnn.eltwise relu %c : tensor<1x8x4x4xf32>
  %d = dnn.conv2d %x, %w : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %k = dnn.eltwise clip %d {alpha = 0.0 : f32, beta = 6.0 : f32} : tensor<1x8x4x4xf32>
  func.return %r, %k : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

/// A relu fused before the pass ran is not split back out: a remark says it still drops NaN.
// CHECK-LABEL: func.func @fused_before
// CHECK:         dnn.conv2d %x, %w {post_ops = [#dnn.eltwise<relu>]}
// REMARK: dnn-propagate-special-values.mlir:[[# @LINE + 2]]:3: remark: [dnn-propagate-special-values] keeps a fused post-op that drops special values: its relu post-op: relu(NaN) = 0
func.func @fused_before(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %c = dnn.conv2d %x, %w {post_ops = [#dnn.eltwise<relu>]} : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  func.return %c : tensor<1x8x4x4xf32>
}
