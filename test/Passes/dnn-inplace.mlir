// RUN: dnnc-opt %s --split-input-file -p dnn-inplace | filecheck %s
// RUN: dnnc-opt %s --split-input-file -p dnn-inplace --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: dnnc-opt %s --split-input-file -p dnn-inplace,dnn-plan-memory --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=PLAN

// The planner honours every decision: it refuses none.
// PLAN-NOT: remark: [dnn-inplace] result {{[0-9]+}} not in place
// PLAN:     remark: [dnn-plan-memory] planned
// PLAN-NOT: remark: [dnn-inplace] result {{[0-9]+}} not in place

/// PaddlePaddle topology 1: a single in-place op; the input is the caller's, so the first op
/// writes a new buffer and the second overwrites it.
// CHECK-LABEL: func.func @single_inplace_op
// CHECK:         %a = dnn.eltwise relu %x : tensor<1x16x8x8xf32>
// CHECK:         %b = dnn.eltwise tanh %a {dnn.inplace = array<i64: 0>}
// REMARK: dnn-inplace.mlir:[[# @LINE + 3]]:3: remark: [dnn-inplace] not in place: operand 0 (%x) lives in a function argument, which is read-only
// REMARK: dnn-inplace.mlir:[[# @LINE + 3]]:3: remark: [dnn-inplace] in place over operand 0 (%a)
func.func @single_inplace_op(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %a = dnn.eltwise relu %x : tensor<1x16x8x8xf32>
  %b = dnn.eltwise tanh %a : tensor<1x16x8x8xf32>
  func.return %b : tensor<1x16x8x8xf32>
}

// -----

/// PaddlePaddle topology 2: %a feeds two consumers; the first may not overwrite it (the second
/// reads it later), the second is its last reader and may.
// CHECK-LABEL: func.func @negative_input_shared_by_two_consumers
// CHECK:         %b = dnn.eltwise tanh %a : tensor<1x16x8x8xf32>
// CHECK:         %c = dnn.eltwise exp %a {dnn.inplace = array<i64: 0>}
// REMARK: dnn-inplace.mlir:[[# @LINE + 3]]:3: remark: [dnn-inplace] not in place: operand 0 (%a): %a is also read by dnn.eltwise at {{.*}}dnn-inplace.mlir:[[# @LINE + 4]]:3 after this op
func.func @negative_input_shared_by_two_consumers(%x: tensor<1x16x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) {
  %a = dnn.eltwise relu %x : tensor<1x16x8x8xf32>
  %b = dnn.eltwise tanh %a : tensor<1x16x8x8xf32>
  %c = dnn.eltwise exp %a : tensor<1x16x8x8xf32>
  func.return %b, %c : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>
}

// -----

/// PaddlePaddle topology 3: a later op reads the in-place candidate's input (here through a
/// reshape view): not in place, the view shares the buffer.
// CHECK-LABEL: func.func @negative_later_reader_through_view
// CHECK:         %b = dnn.softmax %a {axis = 1 : i64} : tensor<1x16x8x8xf32>
// CHECK:         %w = dnn.eltwise exp %v {dnn.inplace = array<i64: 0>}
// REMARK: dnn-inplace.mlir:[[# @LINE + 4]]:3: remark: [dnn-inplace] not in place: operand 0 (%a): %v is also read by dnn.eltwise at {{.*}}dnn-inplace.mlir:[[# @LINE + 5]]:3 after this op
func.func @negative_later_reader_through_view(%x: tensor<1x16x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1024xf32>) {
  %a = dnn.eltwise relu %x : tensor<1x16x8x8xf32>
  %v = dnn.reshape %a : (tensor<1x16x8x8xf32>) -> tensor<1024xf32>
  %b = dnn.softmax %a {axis = 1 : i64} : tensor<1x16x8x8xf32>
  %w = dnn.eltwise exp %v : tensor<1024xf32>
  func.return %b, %w : tensor<1x16x8x8xf32>, tensor<1024xf32>
}

// -----

/// ... unless that reader is ordered before the write: then the last op may overwrite.
// CHECK-LABEL: func.func @later_reader_ordered_before
// CHECK:         %w = dnn.eltwise exp %v : tensor<1024xf32>
// CHECK:         %b = dnn.softmax %a {dnn.inplace = array<i64: 0>, axis = 1 : i64}
func.func @later_reader_ordered_before(%x: tensor<1x16x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1024xf32>) {
  %a = dnn.eltwise relu %x : tensor<1x16x8x8xf32>
  %v = dnn.reshape %a : (tensor<1x16x8x8xf32>) -> tensor<1024xf32>
  %w = dnn.eltwise exp %v : tensor<1024xf32>
  %b = dnn.softmax %a {axis = 1 : i64} : tensor<1x16x8x8xf32>
  func.return %b, %w : tensor<1x16x8x8xf32>, tensor<1024xf32>
}

// -----

/// PaddlePaddle topology 4: a chain relu -> softmax -> add -> tanh shares one buffer; the add
/// overwrites its lhs (the chain), and %y (read later by the tanh's sibling) is left alone.
// CHECK-LABEL: func.func @chain_of_inplace_ops
// CHECK:         %b = dnn.softmax %a {dnn.inplace = array<i64: 0>, axis = 1 : i64}
// CHECK:         %c = dnn.binary add %b, %y {dnn.inplace = array<i64: 0>}
// CHECK:         %d = dnn.eltwise tanh %c {dnn.inplace = array<i64: 0>}
// CHECK:         %e = dnn.eltwise exp %y {dnn.inplace = array<i64: 0>}
func.func @chain_of_inplace_ops(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %a = dnn.eltwise relu %x : tensor<2x8xf32>
  %y = dnn.eltwise sigmoid %x : tensor<2x8xf32>
  %b = dnn.softmax %a {axis = 1 : i64} : tensor<2x8xf32>
  %c = dnn.binary add %b, %y : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %d = dnn.eltwise tanh %c : tensor<2x8xf32>
  %e = dnn.eltwise exp %y : tensor<2x8xf32>
  func.return %d, %e : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

/// PaddlePaddle topology 5: an in-place output consumed by several ops: they all read it
/// before anything overwrites it, so only the last reader may.
// CHECK-LABEL: func.func @output_consumed_by_several_ops
// CHECK:         %b = dnn.eltwise tanh %a {dnn.inplace = array<i64: 0>}
// CHECK:         %c = dnn.eltwise exp %b : tensor<4x4xf32>
// CHECK:         %d = dnn.binary mul %b, %c {dnn.inplace = array<i64: 0>}
func.func @output_consumed_by_several_ops(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = dnn.eltwise relu %x : tensor<4x4xf32>
  %b = dnn.eltwise tanh %a : tensor<4x4xf32>
  %c = dnn.eltwise exp %b : tensor<4x4xf32>
  %d = dnn.binary mul %b, %c : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %d : tensor<4x4xf32>
}

// -----

/// A commutative binary whose lhs is still needed overwrites its rhs (the lowering swaps the
/// operands: oneDNN writes over src_0 only).
// CHECK-LABEL: func.func @binary_over_rhs
// CHECK:         %c = dnn.binary max %a, %b {dnn.inplace = array<i64: 1>}
func.func @binary_over_rhs(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  %b = dnn.eltwise tanh %x : tensor<64xf32>
  %c = dnn.binary max %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  func.return %c, %a : tensor<64xf32>, tensor<64xf32>
}

// -----

/// sub is not commutative: oneDNN can only write over its lhs, which is still needed.
// CHECK-LABEL: func.func @negative_binary_sub_rhs
// CHECK:         %c = dnn.binary sub %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// REMARK: remark: [dnn-inplace] not in place: operand 0 (%a): %a is also read by func.return
func.func @negative_binary_sub_rhs(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  %b = dnn.eltwise tanh %x : tensor<64xf32>
  %c = dnn.binary sub %a, %b : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  func.return %c, %a : tensor<64xf32>, tensor<64xf32>
}

// -----

/// Broadcast: only the full-shape operand has the result's type; oneDNN broadcasts src_1, so
/// the lowering puts the full operand %b first and the result overwrites it.
// CHECK-LABEL: func.func @binary_broadcast_over_full_operand
// CHECK:         %c = dnn.binary mul %t, %b {dnn.inplace = array<i64: 1>}
// REMARK: dnn-inplace.mlir:[[# @LINE + 4]]:3: remark: [dnn-inplace] in place over operand 1 (%b)
func.func @binary_broadcast_over_full_operand(%x: tensor<1x16x4x4xf32>, %s: tensor<1x16x1x1xf32>) -> tensor<1x16x4x4xf32> {
  %t = dnn.eltwise relu %s : tensor<1x16x1x1xf32>
  %b = dnn.eltwise exp %x : tensor<1x16x4x4xf32>
  %c = dnn.binary mul %t, %b : (tensor<1x16x1x1xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  func.return %c : tensor<1x16x4x4xf32>
}

// -----

/// The sum primitive is never run in place.
// CHECK-LABEL: func.func @negative_sum_primitive
// CHECK:         %s = dnn.sum %a, %b : tensor<64xf32>
// CHECK-NOT:     dnn.inplace
// REMARK: remark: [dnn-inplace] not in place: oneDNN's sum primitive runs in place only through an extra buffer
func.func @negative_sum_primitive(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  %b = dnn.eltwise tanh %x : tensor<64xf32>
  %s = dnn.sum %a, %b : tensor<64xf32>
  func.return %s : tensor<64xf32>
}

// -----

/// A constant operand is constant storage: not overwritten.
// CHECK-LABEL: func.func @negative_constant_operand
// CHECK:         dnn.eltwise relu %c : tensor<64xf32>
// REMARK: remark: [dnn-inplace] not in place: operand 0 (%c) lives in constant storage, which is read-only
func.func @negative_constant_operand() -> tensor<64xf32> {
  %c = dnn.constant dense<1.0> : tensor<64xf32>
  %r = dnn.eltwise relu %c : tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// -----

/// A returned value is read by func.return after the op: never overwritten.
// CHECK-LABEL: func.func @negative_returned_operand
// CHECK:         %b = dnn.layer_norm %a : tensor<2x8xf32>
// REMARK: remark: [dnn-inplace] not in place: operand 0 (%a): %a is also read by func.return
func.func @negative_returned_operand(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %a = dnn.eltwise relu %x : tensor<2x8xf32>
  %b = dnn.layer_norm %a : tensor<2x8xf32>
  func.return %a, %b : tensor<2x8xf32>, tensor<2x8xf32>
}
