// RUN: dnnc-opt %s -p dnn-hoist-strides --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-hoist-strides --split-input-file --mlir-print-debuginfo | filecheck %s --check-prefix=LOC

/// The last bottleneck of a ResNet v1 stage, read only by the next stage's stride-2 1x1
/// convolutions: its 3x3 convolution runs at stride 2, its 1x1, add and relu on the 4x4
/// pixels those read; the block input, read at full size by the first 1x1 as well, is
/// copied at stride 2 for the add by a 1x1 average pool; the readers run at stride 1.
// CHECK-LABEL: func.func @stage_end
// CHECK-NEXT:    %a = dnn.conv2d %x, %w1 : (tensor<1x16x8x8xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT:    %ar = dnn.eltwise relu %a : tensor<1x8x8x8xf32>
// CHECK-NEXT:    %b = dnn.conv2d %ar, %w3 {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %br = dnn.eltwise relu %b : tensor<1x8x4x4xf32>
// CHECK-NEXT:    %c = dnn.conv2d %br, %w4 : (tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %[[X:.*]] = dnn.pool avg_exclude_pad %x {kernel = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %s = dnn.binary add %c, %[[X]] : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %y = dnn.eltwise relu %s : tensor<1x16x4x4xf32>
// CHECK-NEXT:    %p = dnn.conv2d %y, %wa : (tensor<1x16x4x4xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %q = dnn.conv2d %y, %wb : (tensor<1x16x4x4xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32>
// CHECK-NEXT:    func.return %p, %q
/// Each new op is where the op it stands for was; the pool where the add is.
// LOC-LABEL: func.func @stage_end
// LOC:         %b = dnn.conv2d {{.*}} loc("{{.*}}dnn-hoist-strides.mlir":[[# @LINE + 5]]:3)
// LOC:         dnn.pool {{.*}} loc("{{.*}}dnn-hoist-strides.mlir":[[# @LINE + 7]]:3)
func.func @stage_end(%x: tensor<1x16x8x8xf32>, %w1: tensor<8x16x1x1xf32>, %w3: tensor<8x8x3x3xf32>, %w4: tensor<16x8x1x1xf32>, %wa: tensor<8x16x1x1xf32>, %wb: tensor<32x16x1x1xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x32x4x4xf32>) {
  %a = dnn.conv2d %x, %w1 : (tensor<1x16x8x8xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x8x8xf32>
  %ar = dnn.eltwise relu %a : tensor<1x8x8x8xf32>
  %b = dnn.conv2d %ar, %w3 {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %br = dnn.eltwise relu %b : tensor<1x8x8x8xf32>
  %c = dnn.conv2d %br, %w4 : (tensor<1x8x8x8xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x8x8xf32>
  %s = dnn.binary add %c, %x : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %y = dnn.eltwise relu %s : tensor<1x16x8x8xf32>
  %p = dnn.conv2d %y, %wa {strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x4x4xf32>
  %q = dnn.conv2d %y, %wb {strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x4x4xf32>
  func.return %p, %q : tensor<1x8x4x4xf32>, tensor<1x32x4x4xf32>
}

// -----

/// A 1x1 convolution of a graph input, its stride (3, 2) taken by that convolution, which
/// reads the input strided (no copy); odd sizes round up (7 rows -> 3, 5 columns -> 3); a
/// per-channel bias add ([1, C, 1, 1]) is applied as it is.
// CHECK-LABEL: func.func @odd_sizes
// CHECK-NEXT:    %c = dnn.conv2d %x, %w {strides = array<i64: 3, 2>} : (tensor<1x4x7x5xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x3x3xf32>
// CHECK-NEXT:    %b = dnn.binary add %c, %k : (tensor<1x8x3x3xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x3x3xf32>
// CHECK-NEXT:    %p = dnn.conv2d %b, %v : (tensor<1x8x3x3xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %p
func.func @odd_sizes(%x: tensor<1x4x7x5xf32>, %w: tensor<8x4x1x1xf32>, %k: tensor<1x8x1x1xf32>, %v: tensor<2x8x1x1xf32>) -> tensor<1x2x3x3xf32> {
  %c = dnn.conv2d %x, %w : (tensor<1x4x7x5xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x7x5xf32>
  %b = dnn.binary add %c, %k : (tensor<1x8x7x5xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x7x5xf32>
  %p = dnn.conv2d %b, %v {strides = array<i64: 3, 2>} : (tensor<1x8x7x5xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x3x3xf32>
  func.return %p : tensor<1x2x3x3xf32>
}

// -----

/// Left alone: a reader at full resolution (a stride-1 1x1 convolution), readers with
/// different strides, a returned value.
// CHECK-LABEL: func.func @negative_full_resolution_readers
// CHECK:         %r = dnn.eltwise relu %c : tensor<1x8x8x8xf32>
// CHECK:         %t = dnn.eltwise relu %d : tensor<1x8x8x8xf32>
// CHECK:         %u = dnn.eltwise relu %e : tensor<1x8x8x8xf32>
// CHECK-NOT:     dnn.pool
// CHECK:         func.return
func.func @negative_full_resolution_readers(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x1x1xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>, tensor<1x8x4x4xf32>, tensor<1x8x3x3xf32>, tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>) {
  %c = dnn.conv2d %x, %w : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %r = dnn.eltwise relu %c : tensor<1x8x8x8xf32>
  %p = dnn.conv2d %r, %w {strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %q = dnn.conv2d %r, %w : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %d = dnn.eltwise relu %x : tensor<1x8x8x8xf32>
  %t = dnn.eltwise relu %d : tensor<1x8x8x8xf32>
  %m = dnn.conv2d %t, %w {strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %n = dnn.conv2d %t, %w {strides = array<i64: 3, 3>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x3x3xf32>
  %e = dnn.eltwise tanh %x : tensor<1x8x8x8xf32>
  %u = dnn.eltwise relu %e : tensor<1x8x8x8xf32>
  %o = dnn.conv2d %u, %w {strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %p, %q, %m, %n, %o, %u : tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>, tensor<1x8x4x4xf32>, tensor<1x8x3x3xf32>, tensor<1x8x4x4xf32>, tensor<1x8x8x8xf32>
}

// -----

/// Left alone: the readers are not 1x1 unpadded convolutions (a stride-2 3x3, a padded
/// stride-2 1x1) or read the value as weights, or the producer is not handled (a pool; a
/// convolution whose binary post-op argument is broadcast along the rows: its pixels are
/// not the result's).
// CHECK-LABEL: func.func @negative_readers_and_producers
// CHECK-NOT:     dnn.pool avg_exclude_pad
// CHECK:         %e = dnn.conv2d %x, %wr {strides = array<i64: 2, 2>}
// CHECK:         func.return
func.func @negative_readers_and_producers(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x1x1xf32>, %w3: tensor<8x8x3x3xf32>, %k: tensor<1x8x1x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x5x5xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %r = dnn.eltwise relu %x : tensor<1x8x8x8xf32>
  %a = dnn.conv2d %r, %w3 {strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 0, 0>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %s = dnn.eltwise relu %r : tensor<1x8x8x8xf32>
  %b = dnn.conv2d %s, %w {strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x5x5xf32>
  %m = dnn.pool max %x {kernel = array<i64: 3, 3>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = dnn.conv2d %m, %w {strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %f = dnn.conv2d %x, %w post_args(%k : tensor<1x8x1x8xf32>) {post_ops = [#dnn.binary<add>]} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %d = dnn.conv2d %f, %w {strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %wr = dnn.eltwise relu %w : tensor<8x8x1x1xf32>
  %e = dnn.conv2d %x, %wr {strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %a, %b, %c, %d, %e : tensor<1x8x4x4xf32>, tensor<1x8x5x5xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

/// Post-ops stay with the convolution computed at the stride: the relu as it is, the sum's
/// full-size argument copied at the stride, the per-channel binary argument as it is.
// CHECK-LABEL: func.func @post_ops
// CHECK-NEXT:    %[[A:.*]] = dnn.pool avg_exclude_pad %acc {kernel = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %f = dnn.conv2d %x, %w post_args(%k, %[[A]] : tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>) {post_ops = [#dnn.eltwise<relu>, #dnn.binary<mul>, #dnn.sum<1.0>], strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %p = dnn.conv2d %f, %w : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
func.func @post_ops(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x1x1xf32>, %k: tensor<1x8x1x1xf32>, %acc: tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
  %f = dnn.conv2d %x, %w post_args(%k, %acc : tensor<1x8x1x1xf32>, tensor<1x8x8x8xf32>) {post_ops = [#dnn.eltwise<relu>, #dnn.binary<mul>, #dnn.sum<1.0>]} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %p = dnn.conv2d %f, %w {strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %p : tensor<1x8x4x4xf32>
}
