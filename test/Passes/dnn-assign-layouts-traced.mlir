// REQUIRES: libdnnl
// RUN: dnnc-opt %s --trace-sizes=1 -p 'dnn-select-kernels,dnn-assign-layouts' | filecheck %s --check-prefix=ONE
// RUN: dnnc-opt %s --trace-sizes=64 -p 'dnn-select-kernels,dnn-assign-layouts' | filecheck %s --check-prefix=SIXTYFOUR

/// A convolution with a bias and a residual of one image, the batch dynamic, traced as
/// dnnc.compile does (the ? dimension the symbol s0). Which operands an op reads in its own
/// layout compares their shapes with the result's: the residual [1, 64, 8, 8] is the
/// result's shape only for one image, so that decision holds under s0 == 1, or s0 != 1 (it
/// must differ). The bias [64] has another rank than the result [N, 64, 8, 8], for every
/// batch: no guard s0 == 64 (Python compares tuples item by item before their lengths: the
/// batch with 64 first, which split batch 64 from the others).
// ONE-NOT:       s0 {{.*}}64
// ONE:           // guard dnn-assign-layouts: s0 == 1
// ONE-NOT:       s0 {{.*}}64
// ONE-LABEL:     func.func @conv_residual
// ONE:             dnn.conv2d %x, %w, %b {{{.*}}dnn.operand_layouts = [
// SIXTYFOUR-NOT: s0 {{.*}}64
// SIXTYFOUR:     // guard dnn-assign-layouts: s0 != 1
// SIXTYFOUR-NOT: s0 {{.*}}64
// SIXTYFOUR-LABEL: func.func @conv_residual
// SIXTYFOUR:       dnn.conv2d %x, %w, %b {{{.*}}dnn.operand_layouts = [
func.func @conv_residual(%x: tensor<?x64x8x8xf32>, %w: tensor<64x64x3x3xf32>, %b: tensor<64xf32>, %r: tensor<1x64x8x8xf32>) -> tensor<?x64x8x8xf32> {
  %c = dnn.conv2d %x, %w, %b {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<?x64x8x8xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<?x64x8x8xf32>
  %y = dnn.binary add %c, %r : (tensor<?x64x8x8xf32>, tensor<1x64x8x8xf32>) -> tensor<?x64x8x8xf32>
  func.return %y : tensor<?x64x8x8xf32>
}
