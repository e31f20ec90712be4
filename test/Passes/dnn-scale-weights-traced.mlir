// RUN: dnnc-opt %s --trace-sizes=1 -p dnn-scale-weights | filecheck %s --check-prefix=ONE
// RUN: dnnc-opt %s --trace-sizes=2 -p dnn-scale-weights | filecheck %s --check-prefix=TWO

/// Squeeze-and-excitation with a dynamic batch, traced as dnnc.compile does (the ? dimension
/// the symbol s0). The factor [N, 16, 1, 1] is one per channel only for one image: traced at
/// 1 the weights are scaled under the guard s0 == 1, traced at 2 the mul stays, under
/// s0 != 1 (the decision differs, and must). Nothing compares the batch with a pixel or
/// channel count (min() over the image's shape did: s0 <= 14, s0 <= 16), so s0 == 1 is
/// the only guard.
// ONE-NOT:     guard {{.*}}s0 {{[<>]}}
// ONE:         // guard dnn-scale-weights: s0 == 1
// ONE-NOT:     // guard
// ONE-LABEL:   func.func @excitation
// ONE:           dnn.binary mul %w, %s : (tensor<8x16x1x1xf32>, tensor<1x16x1x1xf32>) -> tensor<8x16x1x1xf32>
// ONE:           dnn.conv2d %x,
// TWO-NOT:     guard {{.*}}s0 {{[<>]}}
// TWO:         // guard dnn-scale-weights: s0 != 1
// TWO-NOT:     // guard
// TWO-LABEL:   func.func @excitation
// TWO:           %y = dnn.binary mul %x, %s : (tensor<2x16x14x14xf32>, tensor<2x16x1x1xf32>) -> tensor<2x16x14x14xf32>
// TWO:           dnn.conv2d %y, %w
func.func @excitation(%x: tensor<?x16x14x14xf32>, %w: tensor<8x16x1x1xf32>, %b: tensor<8xf32>) -> tensor<?x8x14x14xf32> {
  %m = dnn.reduce mean %x {axes = array<i64: 2, 3>} : (tensor<?x16x14x14xf32>) -> tensor<?x16x1x1xf32>
  %s = dnn.eltwise sigmoid %m : tensor<?x16x1x1xf32>
  %y = dnn.binary mul %x, %s : (tensor<?x16x14x14xf32>, tensor<?x16x1x1xf32>) -> tensor<?x16x14x14xf32>
  %z = dnn.conv2d %y, %w, %b : (tensor<?x16x14x14xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<?x8x14x14xf32>
  func.return %z : tensor<?x8x14x14xf32>
}
