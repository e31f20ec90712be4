// RUN: dnnc-opt %s -p dnn-canonicalize --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-canonicalize --split-input-file --mlir-print-debuginfo | filecheck %s --check-prefix=LOC

/// Two transposes compose into one; transposes that undo each other vanish.
// CHECK-LABEL: func.func @compose_transposes
// CHECK-NEXT:    %t = dnn.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
// CHECK-NEXT:    func.return %t, %x
/// The composed transpose is where the outer one was (its location).
// LOC-LABEL: func.func @compose_transposes
// LOC:         %t = dnn.transpose %x {{.*}} loc("{{.*}}dnn-canonicalize.mlir":[[# @LINE + 3]]:3)
func.func @compose_transposes(%x: tensor<2x3x4x5xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x3x4x5xf32>) {
  %a = dnn.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x4x3x5xf32>
  %t = dnn.transpose %a {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x4x3x5xf32>) -> tensor<2x4x5x3xf32>
  %b = dnn.transpose %x {permutation = array<i64: 1, 0, 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<3x2x4x5xf32>
  %u = dnn.transpose %b {permutation = array<i64: 1, 0, 2, 3>} : (tensor<3x2x4x5xf32>) -> tensor<2x3x4x5xf32>
  func.return %t, %u : tensor<2x4x5x3xf32>, tensor<2x3x4x5xf32>
}

// -----

/// Only the unit dim moves: a reshape (a view). Here 4 and 5 change places: it stays.
// CHECK-LABEL: func.func @transpose_of_unit_dims
// CHECK-NEXT:    %t = dnn.reshape %x : (tensor<1x4x5xf32>) -> tensor<4x1x5xf32>
// CHECK-NEXT:    %u = dnn.transpose %x {permutation = array<i64: 0, 2, 1>}
func.func @transpose_of_unit_dims(%x: tensor<1x4x5xf32>) -> (tensor<4x1x5xf32>, tensor<1x5x4xf32>) {
  %t = dnn.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<1x4x5xf32>) -> tensor<4x1x5xf32>
  %u = dnn.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<1x4x5xf32>) -> tensor<1x5x4xf32>
  func.return %t, %u : tensor<4x1x5xf32>, tensor<1x5x4xf32>
}

// -----

/// Sequence-first attention (PyTorch's nn.MultiheadAttention): k [S, H, D] transposed to
/// [H, S, D], given a batch dim, transposed again for k^T. The reshape moves above the first
/// transpose and the two transposes compose into one, which now feeds the matmul.
// CHECK-LABEL: func.func @reshape_before_transpose
// CHECK-NEXT:    %[[R:.*]] = dnn.reshape %k : (tensor<6x4x8xf32>) -> tensor<1x6x4x8xf32>
// CHECK-NEXT:    %kt = dnn.transpose %[[R]] {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x6x4x8xf32>) -> tensor<1x4x8x6xf32>
// CHECK-NEXT:    func.return %kt
func.func @reshape_before_transpose(%k: tensor<6x4x8xf32>) -> tensor<1x4x8x6xf32> {
  %t = dnn.transpose %k {permutation = array<i64: 1, 0, 2>} : (tensor<6x4x8xf32>) -> tensor<4x6x8xf32>
  %b = dnn.reshape %t : (tensor<4x6x8xf32>) -> tensor<1x4x6x8xf32>
  %kt = dnn.transpose %b {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x4x6x8xf32>) -> tensor<1x4x8x6xf32>
  func.return %kt : tensor<1x4x8x6xf32>
}

// -----

/// A reshape that merges heads regroups elements: it stays after the transpose.
// CHECK-LABEL: func.func @negative_reshape_merging_dims
// CHECK-NEXT:    %t = dnn.transpose %x
// CHECK-NEXT:    %y = dnn.reshape %t
func.func @negative_reshape_merging_dims(%x: tensor<1x4x6x8xf32>) -> tensor<6x32xf32> {
  %t = dnn.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x6x8xf32>) -> tensor<1x6x4x8xf32>
  %y = dnn.reshape %t : (tensor<1x6x4x8xf32>) -> tensor<6x32xf32>
  func.return %y : tensor<6x32xf32>
}

// -----

/// The transposed tensor has another reader, which keeps the transpose: the reshape stays
/// after it (moving it above would add a second transpose).
// CHECK-LABEL: func.func @negative_transpose_read_twice
// CHECK-NEXT:    %t = dnn.transpose %k
// CHECK-NEXT:    %b = dnn.reshape %t
// CHECK-NEXT:    %r = dnn.eltwise relu %t
func.func @negative_transpose_read_twice(%k: tensor<6x4x8xf32>) -> (tensor<1x4x6x8xf32>, tensor<4x6x8xf32>) {
  %t = dnn.transpose %k {permutation = array<i64: 1, 0, 2>} : (tensor<6x4x8xf32>) -> tensor<4x6x8xf32>
  %b = dnn.reshape %t : (tensor<4x6x8xf32>) -> tensor<1x4x6x8xf32>
  %r = dnn.eltwise relu %t : tensor<4x6x8xf32>
  func.return %b, %r : tensor<1x4x6x8xf32>, tensor<4x6x8xf32>
}

// -----

/// A dynamic batch: the reshape rules need static shapes.
// CHECK-LABEL: func.func @negative_dynamic_shape
// CHECK-NEXT:    %t = dnn.transpose %x
// CHECK-NEXT:    %y = dnn.reshape %t
func.func @negative_dynamic_shape(%x: tensor<?x4x6xf32>) -> tensor<1x?x6x4xf32> {
  %t = dnn.transpose %x {permutation = array<i64: 0, 2, 1>} : (tensor<?x4x6xf32>) -> tensor<?x6x4xf32>
  %y = dnn.reshape %t : (tensor<?x6x4xf32>) -> tensor<1x?x6x4xf32>
  func.return %y : tensor<1x?x6x4xf32>
}

// -----

/// Reshapes of reshapes: one reshape.
// CHECK-LABEL: func.func @compose_reshapes
// CHECK-NEXT:    %c = dnn.reshape %x : (tensor<2x12xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %c
func.func @compose_reshapes(%x: tensor<2x12xf32>) -> tensor<4x6xf32> {
  %b = dnn.reshape %x : (tensor<2x12xf32>) -> tensor<24xf32>
  %c = dnn.reshape %b : (tensor<24xf32>) -> tensor<4x6xf32>
  func.return %c : tensor<4x6xf32>
}

// -----

/// q and k each scaled by a scalar: the product is scaled instead, so the matmul reads
/// q and k as they come (and fusion makes the muls post-ops).
// CHECK-LABEL: func.func @scalars_after_matmul
// CHECK-NEXT:    %[[M:.*]] = dnn.matmul %q, %k : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    %[[S:.*]] = dnn.binary mul %[[M]], %s
// CHECK-NEXT:    %p = dnn.binary mul %[[S]], %t
// CHECK-NEXT:    func.return %p
func.func @scalars_after_matmul(%q: tensor<1x4x6x8xf32>, %k: tensor<1x4x8x6xf32>, %s: tensor<1x1x1x1xf32>, %t: tensor<1xf32>) -> tensor<1x4x6x6xf32> {
  %qs = dnn.binary mul %q, %s : (tensor<1x4x6x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x6x8xf32>
  %ks = dnn.binary mul %t, %k : (tensor<1xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x8x6xf32>
  %p = dnn.matmul %qs, %ks : (tensor<1x4x6x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x6x6xf32>
  func.return %p : tensor<1x4x6x6xf32>
}

// -----

/// The scaled q is read twice; a per-column factor is no scalar; a bias would be scaled
/// too: each matmul keeps its operands.
// CHECK-LABEL: func.func @negative_scalars
// CHECK:         dnn.matmul %qs, %k :
// CHECK:         dnn.matmul %q, %kc :
// CHECK:         dnn.matmul %qb, %k, %bias :
func.func @negative_scalars(%q: tensor<6x8xf32>, %k: tensor<8x6xf32>, %s: tensor<1x1xf32>, %c: tensor<1x6xf32>, %bias: tensor<6xf32>) -> (tensor<6x6xf32>, tensor<6x8xf32>, tensor<6x6xf32>, tensor<6x6xf32>) {
  %qs = dnn.binary mul %q, %s : (tensor<6x8xf32>, tensor<1x1xf32>) -> tensor<6x8xf32>
  %a = dnn.matmul %qs, %k : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %kc = dnn.binary mul %k, %c : (tensor<8x6xf32>, tensor<1x6xf32>) -> tensor<8x6xf32>
  %b = dnn.matmul %q, %kc : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  %qb = dnn.binary mul %q, %s : (tensor<6x8xf32>, tensor<1x1xf32>) -> tensor<6x8xf32>
  %d = dnn.matmul %qb, %k, %bias : (tensor<6x8xf32>, tensor<8x6xf32>, tensor<6xf32>) -> tensor<6x6xf32>
  func.return %a, %qs, %b, %d : tensor<6x6xf32>, tensor<6x8xf32>, tensor<6x6xf32>, tensor<6x6xf32>
}
