// REQUIRES: libdnnl
// RUN: dnnc-opt %s -p dnn-transpose-as-view | filecheck %s

/// A dynamic batch: oneDNN cannot be asked, nothing changes.
// CHECK-LABEL: func.func @negative_dynamic_shape
// CHECK-NOT:     #dnn.layout
func.func @negative_dynamic_shape(%xq: tensor<?x8x4x16xf32>, %k: tensor<?x4x16x8xf32>) -> tensor<?x4x8x8xf32> {
  %q = dnn.transpose %xq {permutation = array<i64: 0, 2, 1, 3>} : (tensor<?x8x4x16xf32>) -> tensor<?x4x8x16xf32>
  %s = dnn.matmul %q, %k : (tensor<?x4x8x16xf32>, tensor<?x4x16x8xf32>) -> tensor<?x4x8x8xf32>
  func.return %s : tensor<?x4x8x8xf32>
}
