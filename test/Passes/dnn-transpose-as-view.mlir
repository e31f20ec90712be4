// REQUIRES: libdnnl
// RUN: dnnc-opt %s -p dnn-transpose-as-view --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-transpose-as-view,dnn-to-onednn --split-input-file | filecheck %s --check-prefix=LOWERED

/// Attention scores: q and k come out of their projections as [1, S, H, D] and are
/// transposed for the matmul; both transposes become views the matmul reads through strides.
// CHECK-LABEL: func.func @read_transposed_operands
// CHECK:         %q = dnn.transpose %xq {{.*}} -> tensor<1x4x8x16xf32, #dnn.layout<acbd>>
// CHECK:         %k = dnn.transpose %xk {{.*}} -> tensor<1x4x16x8xf32, #dnn.layout<adbc>>
// CHECK:         dnn.matmul %q, %k : (tensor<1x4x8x16xf32, #dnn.layout<acbd>>, tensor<1x4x16x8xf32, #dnn.layout<adbc>>) -> tensor<1x4x8x8xf32>
// LOWERED-LABEL: func.func @read_transposed_operands
// LOWERED-NOT:   onednn.primitive reorder
// LOWERED:       onednn.reshape %{{.*}} : !onednn.memory<1x8x4x16xf32> -> !onednn.memory<1x4x8x16xf32, acbd>
// LOWERED:       onednn.reshape %{{.*}} : !onednn.memory<1x8x4x16xf32> -> !onednn.memory<1x4x16x8xf32, adbc>
// LOWERED:       onednn.primitive matmul ins(src = %0 : !onednn.memory<1x4x8x16xf32, acbd>, weights = %1 : !onednn.memory<1x4x16x8xf32, adbc>)
func.func @read_transposed_operands(%xq: tensor<1x8x4x16xf32>, %xk: tensor<1x8x4x16xf32>) -> tensor<1x4x8x8xf32> {
  %q = dnn.transpose %xq {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  %k = dnn.transpose %xk {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x16x8xf32>
  %s = dnn.matmul %q, %k : (tensor<1x4x8x16xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %s : tensor<1x4x8x8xf32>
}

// -----

/// The attention output [1, H, S, D] transposed back to [1, S, H, D]: the matmul writes it
/// there through permuted strides and the transpose is a view of its result.
// CHECK-LABEL: func.func @write_transposed_result
// CHECK:         %o = dnn.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32, #dnn.layout<acbd>>
// CHECK:         %t = dnn.transpose %o {{.*}} : (tensor<1x4x8x16xf32, #dnn.layout<acbd>>) -> tensor<1x8x4x16xf32>
// LOWERED-LABEL: func.func @write_transposed_result
// LOWERED-NOT:   onednn.primitive reorder
// LOWERED:       %[[DST:.*]] = onednn.reshape %result0 : !onednn.memory<1x8x4x16xf32> -> !onednn.memory<1x4x8x16xf32, acbd>
// LOWERED:       onednn.primitive matmul {{.*}} outs(dst = %[[DST]] : !onednn.memory<1x4x8x16xf32, acbd>)
func.func @write_transposed_result(%p: tensor<1x4x8x8xf32>, %v: tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32> {
  %o = dnn.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %t = dnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
  func.return %t : tensor<1x8x4x16xf32>
}

// -----

/// Sequence-first attention output (PyTorch's nn.MultiheadAttention): [1, H, S, D] to
/// [S, 1, H, D]. The unit dim goes outermost in the matmul's dst layout (acbd, not cabd:
/// the same bytes, and strides oneDNN's brgemm takes).
// CHECK-LABEL: func.func @write_transposed_result_unit_dim
// CHECK:         %o = dnn.matmul {{.*}} -> tensor<1x4x8x16xf32, #dnn.layout<acbd>>
// CHECK:         %t = dnn.transpose %o {{.*}} -> tensor<8x1x4x16xf32>
func.func @write_transposed_result_unit_dim(%p: tensor<1x4x8x8xf32>, %v: tensor<1x4x8x16xf32>) -> tensor<8x1x4x16xf32> {
  %o = dnn.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %t = dnn.transpose %o {permutation = array<i64: 2, 0, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<8x1x4x16xf32>
  func.return %t : tensor<8x1x4x16xf32>
}

// -----

/// The transposed q is also read by a relu, which reads plain data: the transpose stays.
// CHECK-LABEL: func.func @negative_reader_not_matmul
// CHECK:         %q = dnn.transpose %xq {{.*}} -> tensor<1x4x8x16xf32>
// CHECK-NOT:     #dnn.layout
// LOWERED-LABEL: func.func @negative_reader_not_matmul
// LOWERED:       onednn.primitive reorder
func.func @negative_reader_not_matmul(%xq: tensor<1x8x4x16xf32>, %k: tensor<1x4x16x8xf32>) -> (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) {
  %q = dnn.transpose %xq {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32>
  %s = dnn.matmul %q, %k : (tensor<1x4x8x16xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x8x8xf32>
  %r = dnn.eltwise relu %q : tensor<1x4x8x16xf32>
  func.return %s, %r : tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>
}

// -----

/// The matmul's result is also returned (plain, the caller's array): it keeps writing plain.
// CHECK-LABEL: func.func @negative_result_read_twice
// CHECK:         %o = dnn.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
// CHECK:         %t = dnn.transpose %o {{.*}} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
func.func @negative_result_read_twice(%p: tensor<1x4x8x8xf32>, %v: tensor<1x4x8x16xf32>) -> (tensor<1x8x4x16xf32>, tensor<1x4x8x16xf32>) {
  %o = dnn.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %t = dnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
  func.return %t, %o : tensor<1x8x4x16xf32>, tensor<1x4x8x16xf32>
}

// -----

/// A post-op argument is read in dst's logical order: the matmul keeps a plain dst.
// CHECK-LABEL: func.func @negative_post_op_argument
// CHECK:         %o = dnn.matmul {{.*}} -> tensor<1x4x8x16xf32>
// CHECK-NOT:     #dnn.layout
func.func @negative_post_op_argument(%p: tensor<1x4x8x8xf32>, %v: tensor<1x4x8x16xf32>, %a: tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32> {
  %o = dnn.matmul %p, %v post_args(%a : tensor<1x4x8x16xf32>) {post_ops = [#dnn.binary<add>]} : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  %t = dnn.transpose %o {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
  func.return %t : tensor<1x8x4x16xf32>
}
