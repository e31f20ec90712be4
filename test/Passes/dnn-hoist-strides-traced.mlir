// RUN: dnnc-opt %s --trace-sizes=1 -p dnn-hoist-strides | filecheck %s
// RUN: dnnc-opt %s --trace-sizes=16 -p dnn-hoist-strides | filecheck %s --check-prefix=SIXTEEN

/// A stage end with a dynamic batch, traced as dnnc.compile does (the ? dimension the symbol
/// s0), at batch 1 and 16: the 3x3 convolution runs at stride 2 either way and no guard
/// compares the batch with the pixels or channels (min() over the image's shape did: one
/// guard per size, s0 <= 8 and s0 <= 16 here, splitting batches 1..16 into traces).
// CHECK-NOT:     // guard
// CHECK-LABEL:   func.func @stage_end
// CHECK:           dnn.conv2d %x, %w {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x16x8x8xf32>, tensor<8x16x3x3xf32>) -> tensor<1x8x4x4xf32>
// CHECK:           dnn.conv2d %{{.*}}, %wa : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
// SIXTEEN-NOT:   // guard
// SIXTEEN-LABEL: func.func @stage_end
// SIXTEEN:         strides = array<i64: 2, 2>} : (tensor<16x16x8x8xf32>, tensor<8x16x3x3xf32>) -> tensor<16x8x4x4xf32>
func.func @stage_end(%x: tensor<?x16x8x8xf32>, %w: tensor<8x16x3x3xf32>, %wa: tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32> {
  %b = dnn.conv2d %x, %w {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<?x16x8x8xf32>, tensor<8x16x3x3xf32>) -> tensor<?x8x8x8xf32>
  %r = dnn.eltwise relu %b : tensor<?x8x8x8xf32>
  %p = dnn.conv2d %r, %wa {strides = array<i64: 2, 2>} : (tensor<?x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<?x8x4x4xf32>
  func.return %p : tensor<?x8x4x4xf32>
}
