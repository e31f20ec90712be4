// REQUIRES: libdnnl
// RUN: %python -m dnnc.tools.run %s --pipeline '' --profile | filecheck %s

/// --profile ends with what the data transforms cost: two reorders of a 1x32x8x8 f32 tensor
/// (8192 bytes each way) read and write 4 * 8192 bytes.
// CHECK: onednn:reorder
// CHECK-SAME: [{{.+}}]
// CHECK: onednn:eltwise
// CHECK: onednn:reorder
// CHECK: reorders: 2 steps moving 32768 bytes (read + written)
func.func @blocked_relu(%x: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %b = dnn.reorder %x : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>
  %r = dnn.eltwise relu %b : tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>
  %y = dnn.reorder %r : (tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>) -> tensor<1x32x8x8xf32>
  func.return %y : tensor<1x32x8x8xf32>
}
