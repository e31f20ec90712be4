// RUN: dnnc-opt %s -p dnn-scale-weights --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-scale-weights --split-input-file --mlir-print-debuginfo | filecheck %s --check-prefix=LOC

/// Squeeze-and-excitation: the factor %s, computed from %x, scales the 1x1 projection's
/// weights (8x16) instead of the 16x14x14 activation; the convolution reads %x.
// CHECK-LABEL: func.func @excitation
// CHECK-NEXT:    %m = dnn.reduce mean %x
// CHECK-NEXT:    %s = dnn.eltwise sigmoid %m
// CHECK-NEXT:    %[[W:.*]] = dnn.binary mul %w, %s : (tensor<8x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<8x16x1x1xf32>
// CHECK-NEXT:    %z = dnn.conv2d %x, %[[W]], %b : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x14x14xf32>
// CHECK-NEXT:    func.return %z
/// The weights' multiply is where the activation's was (its location).
// LOC-LABEL: func.func @excitation
// LOC:         dnn.binary mul %w, %s {{.*}} loc("{{.*}}dnn-scale-weights.mlir":[[# @LINE + 4]]:3)
func.func @excitation(%x: tensor<1x16x14x14xf32>, %w: tensor<8x16x1x1xf32>, %b: tensor<8xf32>) -> tensor<1x8x14x14xf32> {
  %m = dnn.reduce mean %x {axes = array<i64: 2, 3>} : (tensor<1x16x14x14xf32>) -> tensor<1x16x1x1xf32>
  %s = dnn.eltwise sigmoid %m : tensor<1x16x1x1xf32>
  %y = dnn.binary mul %x, %s : (tensor<1x16x14x14xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x14x14xf32>
  %z = dnn.conv2d %y, %w, %b : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<1x8x14x14xf32>
  func.return %z : tensor<1x8x14x14xf32>
}

// -----

/// The factor first, %x computed (a relu), a batch of two sharing the factor, a padded 3x3
/// convolution and a second convolution reading the product: each gets scaled weights.
// CHECK-LABEL: func.func @factor_first_two_readers
// CHECK:         %[[W:.*]] = dnn.binary mul %w, %s : (tensor<4x16x3x3xf32>, tensor<1x16x1x1xf32>) -> tensor<4x16x3x3xf32>
// CHECK-NEXT:    %z = dnn.conv2d %r, %[[W]] {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>}
// CHECK-NEXT:    %[[V:.*]] = dnn.binary mul %v, %s : (tensor<2x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x1x1xf32>
// CHECK-NEXT:    %u = dnn.conv2d %r, %[[V]] : (tensor<2x16x14x14xf32>, tensor<2x16x1x1xf32>) -> tensor<2x2x14x14xf32>
func.func @factor_first_two_readers(%x: tensor<2x16x14x14xf32>, %w: tensor<4x16x3x3xf32>, %v: tensor<2x16x1x1xf32>) -> (tensor<2x4x14x14xf32>, tensor<2x2x14x14xf32>) {
  %r = dnn.eltwise relu %x : tensor<2x16x14x14xf32>
  %m = dnn.reduce mean %r {axes = array<i64: 0, 2, 3>} : (tensor<2x16x14x14xf32>) -> tensor<1x16x1x1xf32>
  %s = dnn.eltwise sigmoid %m : tensor<1x16x1x1xf32>
  %y = dnn.binary mul %s, %r : (tensor<1x16x1x1xf32>, tensor<2x16x14x14xf32>) -> tensor<2x16x14x14xf32>
  %z = dnn.conv2d %y, %w {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<2x16x14x14xf32>, tensor<4x16x3x3xf32>) -> tensor<2x4x14x14xf32>
  %u = dnn.conv2d %y, %v : (tensor<2x16x14x14xf32>, tensor<2x16x1x1xf32>) -> tensor<2x2x14x14xf32>
  func.return %z, %u : tensor<2x4x14x14xf32>, tensor<2x2x14x14xf32>
}

// -----

/// Deep blocks: the 7x7 activation (16x49 elements) is smaller than the weights (32x16):
/// scaling the weights would be the larger pass, so the mul stays.
// CHECK-LABEL: func.func @negative_weights_larger
// CHECK:         %y = dnn.binary mul %x, %s
// CHECK-NEXT:    %z = dnn.conv2d %y, %w
func.func @negative_weights_larger(%x: tensor<1x16x7x7xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x7x7xf32> {
  %s = dnn.reduce mean %x {axes = array<i64: 2, 3>} : (tensor<1x16x7x7xf32>) -> tensor<1x16x1x1xf32>
  %y = dnn.binary mul %x, %s : (tensor<1x16x7x7xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x7x7xf32>
  %z = dnn.conv2d %y, %w : (tensor<1x16x7x7xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x7x7xf32>
  func.return %z : tensor<1x32x7x7xf32>
}

// -----

/// A factor known before %x's producer runs (a graph input, a constant, one computed
/// earlier) stays a mul, for dnn-fuse-post-ops to make a post-op of that producer.
// CHECK-LABEL: func.func @negative_factor_known_first
// CHECK:         %y = dnn.binary mul %r, %s
// CHECK-NEXT:    %z = dnn.conv2d %y, %w
// CHECK-NEXT:    %q = dnn.binary mul %r, %c
// CHECK-NEXT:    %u = dnn.conv2d %q, %w
// CHECK-NEXT:    %e = dnn.binary mul %r, %f
// CHECK-NEXT:    %d = dnn.conv2d %e, %w
func.func @negative_factor_known_first(%x: tensor<1x16x14x14xf32>, %s: tensor<1x16x1x1xf32>, %w: tensor<8x16x1x1xf32>) -> (tensor<1x8x14x14xf32>, tensor<1x8x14x14xf32>, tensor<1x8x14x14xf32>) {
  %c = dnn.constant dense<2.0> : tensor<1x16x1x1xf32>
  %f = dnn.eltwise sigmoid %s : tensor<1x16x1x1xf32>
  %r = dnn.eltwise relu %x : tensor<1x16x14x14xf32>
  %y = dnn.binary mul %r, %s : (tensor<1x16x14x14xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x14x14xf32>
  %z = dnn.conv2d %y, %w : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x14x14xf32>
  %q = dnn.binary mul %r, %c : (tensor<1x16x14x14xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x14x14xf32>
  %u = dnn.conv2d %q, %w : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x14x14xf32>
  %e = dnn.binary mul %r, %f : (tensor<1x16x14x14xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x14x14xf32>
  %d = dnn.conv2d %e, %w : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x14x14xf32>
  func.return %z, %u, %d : tensor<1x8x14x14xf32>, tensor<1x8x14x14xf32>, tensor<1x8x14x14xf32>
}

// -----

/// Another reader needs the product itself (the relu here, the function's result there).
// CHECK-LABEL: func.func @negative_other_reader
// CHECK:         %y = dnn.binary mul %x, %s
// CHECK-NEXT:    %z = dnn.conv2d %y, %w
// CHECK-NEXT:    %r = dnn.eltwise relu %y
// CHECK-LABEL: func.func @negative_returned
// CHECK:         %y = dnn.binary mul %x, %s
// CHECK-NEXT:    %z = dnn.conv2d %y, %w
func.func @negative_other_reader(%x: tensor<1x16x14x14xf32>, %w: tensor<8x16x1x1xf32>) -> (tensor<1x8x14x14xf32>, tensor<1x16x14x14xf32>) {
  %s = dnn.reduce mean %x {axes = array<i64: 2, 3>} : (tensor<1x16x14x14xf32>) -> tensor<1x16x1x1xf32>
  %y = dnn.binary mul %x, %s : (tensor<1x16x14x14xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x14x14xf32>
  %z = dnn.conv2d %y, %w : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x14x14xf32>
  %r = dnn.eltwise relu %y : tensor<1x16x14x14xf32>
  func.return %z, %r : tensor<1x8x14x14xf32>, tensor<1x16x14x14xf32>
}
func.func @negative_returned(%x: tensor<1x16x14x14xf32>, %w: tensor<8x16x1x1xf32>) -> (tensor<1x8x14x14xf32>, tensor<1x16x14x14xf32>) {
  %s = dnn.reduce mean %x {axes = array<i64: 2, 3>} : (tensor<1x16x14x14xf32>) -> tensor<1x16x1x1xf32>
  %y = dnn.binary mul %x, %s : (tensor<1x16x14x14xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x14x14xf32>
  %z = dnn.conv2d %y, %w : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x14x14xf32>
  func.return %z, %y : tensor<1x8x14x14xf32>, tensor<1x16x14x14xf32>
}

// -----

/// Factors that are not one per input channel of a one-group convolution: per batch item,
/// per pixel, a depthwise convolution (its weights hold one input channel per group), and
/// the product read as weights.
// CHECK-LABEL: func.func @negative_not_per_channel
// CHECK:         %y = dnn.binary mul %x, %s
// CHECK-NEXT:    %z = dnn.conv2d %y, %w
// CHECK:         %q = dnn.binary mul %x, %p
// CHECK-NEXT:    %u = dnn.conv2d %q, %w
// CHECK:         %e = dnn.binary mul %x, %t
// CHECK-NEXT:    %d = dnn.conv2d %e, %dw {groups = 16 : i64}
// CHECK:         %m = dnn.binary mul %f, %t
// CHECK-NEXT:    %c = dnn.conv2d %x, %m
func.func @negative_not_per_channel(%x: tensor<2x16x14x14xf32>, %w: tensor<8x16x1x1xf32>, %dw: tensor<16x1x3x3xf32>, %f: tensor<8x16x1x1xf32>) -> (tensor<2x8x14x14xf32>, tensor<2x8x14x14xf32>, tensor<2x16x12x12xf32>, tensor<2x8x14x14xf32>) {
  %s = dnn.reduce mean %x {axes = array<i64: 2, 3>} : (tensor<2x16x14x14xf32>) -> tensor<2x16x1x1xf32>
  %y = dnn.binary mul %x, %s : (tensor<2x16x14x14xf32>, tensor<2x16x1x1xf32>) -> tensor<2x16x14x14xf32>
  %z = dnn.conv2d %y, %w : (tensor<2x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<2x8x14x14xf32>
  %p = dnn.reduce mean %x {axes = array<i64: 0, 1>} : (tensor<2x16x14x14xf32>) -> tensor<1x1x14x14xf32>
  %q = dnn.binary mul %x, %p : (tensor<2x16x14x14xf32>, tensor<1x1x14x14xf32>) -> tensor<2x16x14x14xf32>
  %u = dnn.conv2d %q, %w : (tensor<2x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<2x8x14x14xf32>
  %t = dnn.reduce mean %x {axes = array<i64: 0, 2, 3>} : (tensor<2x16x14x14xf32>) -> tensor<1x16x1x1xf32>
  %e = dnn.binary mul %x, %t : (tensor<2x16x14x14xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x14x14xf32>
  %d = dnn.conv2d %e, %dw {groups = 16 : i64} : (tensor<2x16x14x14xf32>, tensor<16x1x3x3xf32>) -> tensor<2x16x12x12xf32>
  %m = dnn.binary mul %f, %t : (tensor<8x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<8x16x1x1xf32>
  %c = dnn.conv2d %x, %m : (tensor<2x16x14x14xf32>, tensor<8x16x1x1xf32>) -> tensor<2x8x14x14xf32>
  func.return %z, %u, %d, %c : tensor<2x8x14x14xf32>, tensor<2x8x14x14xf32>, tensor<2x16x12x12xf32>, tensor<2x8x14x14xf32>
}

// -----

/// Weights of another element type than the factor: a mul of the two would not verify.
// CHECK-LABEL: func.func @negative_weights_of_another_type
// CHECK:         %y = dnn.binary mul %x, %s
// CHECK-NEXT:    %z = dnn.conv2d %y, %w
func.func @negative_weights_of_another_type(%x: tensor<1x16x14x14xf32>, %w: tensor<8x16x1x1xbf16>) -> tensor<1x8x14x14xf32> {
  %s = dnn.reduce mean %x {axes = array<i64: 2, 3>} : (tensor<1x16x14x14xf32>) -> tensor<1x16x1x1xf32>
  %y = dnn.binary mul %x, %s : (tensor<1x16x14x14xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x14x14xf32>
  %z = dnn.conv2d %y, %w : (tensor<1x16x14x14xf32>, tensor<8x16x1x1xbf16>) -> tensor<1x8x14x14xf32>
  func.return %z : tensor<1x8x14x14xf32>
}
