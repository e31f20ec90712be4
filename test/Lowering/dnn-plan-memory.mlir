// RUN: dnnc-opt %s --split-input-file -p dnn-plan-memory | filecheck %s
// RUN: dnnc-opt %s --split-input-file -p dnn-plan-memory --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// A chain needs two buffers at a time: the third value reuses the first one's bytes.
// CHECK-LABEL: func.func @chain_reuses_buffers
// CHECK-SAME:    dnn.arena_bytes = 8192 : i64, dnn.lower_bound_bytes = 8192 : i64
// CHECK:         dnn.eltwise relu %x {dnn.arena_offsets = array<i64: 0>}
// CHECK:         dnn.eltwise tanh %a {dnn.arena_offsets = array<i64: 4096>}
// CHECK:         dnn.eltwise relu %b {dnn.arena_offsets = array<i64: 0>}
// CHECK:         dnn.eltwise tanh %c {dnn.arena_offsets = array<i64: -1>}
// REMARK: dnn-plan-memory.mlir:[[# @LINE + 1]]:1: remark: [dnn-plan-memory] planned 8192 bytes, lower bound 8192 (+0.0%)
func.func @chain_reuses_buffers(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %a = dnn.eltwise relu %x : tensor<1x16x8x8xf32>
  %b = dnn.eltwise tanh %a : tensor<1x16x8x8xf32>
  %c = dnn.eltwise relu %b : tensor<1x16x8x8xf32>
  %d = dnn.eltwise tanh %c : tensor<1x16x8x8xf32>
  func.return %d : tensor<1x16x8x8xf32>
}

// -----

/// %a is read by %b and, later, by %c: it stays live until %c, so %b and %c cannot reuse it.
// CHECK-LABEL: func.func @diamond_extends_lifetime
// CHECK-SAME:    dnn.arena_bytes = 12288 : i64, dnn.lower_bound_bytes = 12288 : i64
// CHECK:         %a = dnn.eltwise relu %x {dnn.arena_offsets = array<i64: 0>}
// CHECK:         %b = dnn.eltwise tanh %a {dnn.arena_offsets = array<i64: 4096>}
// CHECK:         %c = dnn.eltwise exp %a {dnn.arena_offsets = array<i64: 8192>}
// CHECK:         %d = dnn.binary add %b, %c {dnn.arena_offsets = array<i64: -1>}
func.func @diamond_extends_lifetime(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %a = dnn.eltwise relu %x : tensor<1x16x8x8xf32>
  %b = dnn.eltwise tanh %a : tensor<1x16x8x8xf32>
  %c = dnn.eltwise exp %a : tensor<1x16x8x8xf32>
  %d = dnn.binary add %b, %c : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  func.return %d : tensor<1x16x8x8xf32>
}

// -----

/// A reshape is a view: it shares its source's offset, and keeps the source alive while it is read.
// CHECK-LABEL: func.func @reshape_shares_offset
// CHECK-SAME:    dnn.arena_bytes = 8192 : i64
// CHECK:         %a = dnn.eltwise relu %x {dnn.arena_offsets = array<i64: 0>}
// CHECK:         %v = dnn.reshape %a {dnn.arena_offsets = array<i64: 0>}
// CHECK:         %b = dnn.eltwise tanh %v {dnn.arena_offsets = array<i64: 4096>}
// CHECK:         %r = dnn.reshape %b {dnn.arena_offsets = array<i64: 4096>}
func.func @reshape_shares_offset(%x: tensor<4x256xf32>) -> tensor<4x256xf32> {
  %a = dnn.eltwise relu %x : tensor<4x256xf32>
  %v = dnn.reshape %a : (tensor<4x256xf32>) -> tensor<1024xf32>
  %b = dnn.eltwise tanh %v : tensor<1024xf32>
  %r = dnn.reshape %b : (tensor<1024xf32>) -> tensor<4x256xf32>
  %c = dnn.eltwise exp %r : tensor<4x256xf32>
  func.return %c : tensor<4x256xf32>
}

// -----

/// A returned value is written into the caller's array (-1), and so is a view of it.
// CHECK-LABEL: func.func @returned_value_not_in_arena
// CHECK-SAME:    dnn.arena_bytes = 0 : i64, dnn.lower_bound_bytes = 0 : i64
// CHECK:         dnn.eltwise relu %x {dnn.arena_offsets = array<i64: -1>}
// CHECK:         dnn.reshape %a {dnn.arena_offsets = array<i64: -1>}
// REMARK: remark: [dnn-plan-memory] planned 0 bytes, lower bound 0 (+0.0%)
func.func @returned_value_not_in_arena(%x: tensor<4x256xf32>) -> tensor<1024xf32> {
  %a = dnn.eltwise relu %x : tensor<4x256xf32>
  %v = dnn.reshape %a : (tensor<4x256xf32>) -> tensor<1024xf32>
  func.return %v : tensor<1024xf32>
}

// -----

/// Returned twice: written into the first result's array (the lowering copies it into the second).
// CHECK-LABEL: func.func @returned_twice
// CHECK-SAME:    dnn.arena_bytes = 0 : i64
// CHECK:         dnn.eltwise relu %x {dnn.arena_offsets = array<i64: -1>}
func.func @returned_twice(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  func.return %a, %a : tensor<64xf32>, tensor<64xf32>
}

// -----

/// An input returned directly and constants need no arena bytes.
// CHECK-LABEL: func.func @input_returned_directly
// CHECK-SAME:    dnn.arena_bytes = 256 : i64
// CHECK:         dnn.constant {{.*}} {dnn.arena_offsets = array<i64: -1>}
// CHECK:         dnn.binary add %x, %c {dnn.arena_offsets = array<i64: 0>}
// CHECK:         dnn.eltwise relu %s {dnn.arena_offsets = array<i64: -1>}
func.func @input_returned_directly(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %c = dnn.constant dense<1.0> : tensor<64xf32>
  %s = dnn.binary add %x, %c : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %r = dnn.eltwise relu %s : tensor<64xf32>
  func.return %x, %r, %c : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

/// An honoured in-place request: the result shares the operand's buffer (one buffer in all).
// CHECK-LABEL: func.func @inplace_shares_buffer
// CHECK-SAME:    dnn.arena_bytes = 4096 : i64
// CHECK:         %a = dnn.eltwise relu %x {dnn.arena_offsets = array<i64: 0>}
// CHECK:         %b = dnn.eltwise tanh %a {dnn.inplace = array<i64: 0>, dnn.arena_offsets = array<i64: 0>}
func.func @inplace_shares_buffer(%x: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %a = dnn.eltwise relu %x : tensor<1x16x8x8xf32>
  %b = dnn.eltwise tanh %a {dnn.inplace = array<i64: 0>} : tensor<1x16x8x8xf32>
  %c = dnn.eltwise exp %b : tensor<1x16x8x8xf32>
  func.return %c : tensor<1x16x8x8xf32>
}

// -----

/// In-place requests over a caller's input, over a value read later and over another type are refused.
// CHECK-LABEL: func.func @negative_inplace_refused
// CHECK:         %a = dnn.eltwise relu %x {dnn.inplace = array<i64: -1>, dnn.arena_offsets = array<i64: [[A:[0-9]+]]>}
// CHECK:         %b = dnn.eltwise tanh %a {dnn.inplace = array<i64: -1>, dnn.arena_offsets = array<i64: [[B:[0-9]+]]>}
// CHECK:         %r = dnn.reorder %b {dnn.inplace = array<i64: -1>, dnn.arena_offsets = array<i64: -1>}
// REMARK: dnn-plan-memory.mlir:[[# @LINE + 5]]:3: remark: [dnn-plan-memory] result 0 not in place: operand 0 (%x) lives in a function argument, which is read-only
// REMARK: dnn-plan-memory.mlir:[[# @LINE + 5]]:3: remark: [dnn-plan-memory] result 0 not in place: operand 0 (%a): %a is also read by dnn.binary at {{.*}}dnn-plan-memory.mlir:[[# @LINE + 7]]:3 after this op
// REMARK: dnn-plan-memory.mlir:[[# @LINE + 5]]:3: remark: [dnn-plan-memory] result 0 not in place: operand 0 (%b) has type tensor<1x16x8x8xf32>, the result tensor<1x16x8x8xf32, #dnn.layout<nChw16c>>
// REMARK: remark: [dnn-plan-memory] planned 8192 bytes
func.func @negative_inplace_refused(%x: tensor<1x16x8x8xf32>) -> (tensor<1x16x8x8xf32, #dnn.layout<nChw16c>>, tensor<1x16x8x8xf32>) {
  %a = dnn.eltwise relu %x {dnn.inplace = array<i64: 0>} : tensor<1x16x8x8xf32>
  %b = dnn.eltwise tanh %a {dnn.inplace = array<i64: 0>} : tensor<1x16x8x8xf32>
  %r = dnn.reorder %b {dnn.inplace = array<i64: 0>} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32, #dnn.layout<nChw16c>>
  %s = dnn.binary add %a, %b : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  func.return %r, %s : tensor<1x16x8x8xf32, #dnn.layout<nChw16c>>, tensor<1x16x8x8xf32>
}

// -----

/// Blocked layouts are planned at their padded size: 3 channels padded to 16 (16*4*4*4 bytes).
// CHECK-LABEL: func.func @blocked_padded_size
// CHECK-SAME:    dnn.arena_bytes = 1024 : i64
func.func @blocked_padded_size(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %a = dnn.reorder %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32, #dnn.layout<nChw16c>>
  %b = dnn.reorder %a : (tensor<1x3x4x4xf32, #dnn.layout<nChw16c>>) -> tensor<1x3x4x4xf32>
  func.return %b : tensor<1x3x4x4xf32>
}

// -----

/// oneDNN's binary writes in place over src_0 only, and sub cannot swap its operands to make
/// the rhs src_0: the request over the rhs is refused (a commutative max would be swapped).
// CHECK-LABEL: func.func @negative_inplace_binary_rhs_not_commutative
// CHECK:         %c = dnn.binary sub %a, %b {dnn.inplace = array<i64: -1>, dnn.arena_offsets = array<i64: -1>}
// REMARK: dnn-plan-memory.mlir:[[# @LINE + 4]]:3: remark: [dnn-plan-memory] result 0 not in place: operand 1 (%b) is the rhs of sub, which cannot swap its operands
func.func @negative_inplace_binary_rhs_not_commutative(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  %b = dnn.eltwise tanh %x : tensor<64xf32>
  %c = dnn.binary sub %a, %b {dnn.inplace = array<i64: 1>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  func.return %c, %a : tensor<64xf32>, tensor<64xf32>
}

// -----

/// An implicit concat whose offsets are not where the inputs lie in the result is dropped: the
/// concat runs, each input has a buffer of its own.
// CHECK-LABEL: func.func @negative_implicit_concat_wrong_offsets
// CHECK:         %c = dnn.concat %a, %b {dnn.arena_offsets = array<i64: -1>, axis = 0 : i64}
// REMARK: dnn-plan-memory.mlir:[[# @LINE + 4]]:3: remark: [dnn-plan-memory] not fused into its buffer: the byte offsets must be [0, 64], not [0, 32]
func.func @negative_implicit_concat_wrong_offsets(%x: tensor<16xf32>) -> tensor<32xf32> {
  %a = dnn.eltwise relu %x : tensor<16xf32>
  %b = dnn.eltwise tanh %x : tensor<16xf32>
  %c = dnn.concat %a, %b {axis = 0 : i64, dnn.implicit_concat = array<i64: 0, 32>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  func.return %c : tensor<32xf32>
}

// -----

/// A slice with steps reads strided elements: it cannot be a view, the attribute is dropped.
// CHECK-LABEL: func.func @negative_implicit_slice_steps
// CHECK:         %s = dnn.slice %a {dnn.arena_offsets = array<i64: -1>, starts = array<i64: 0>, ends = array<i64: 16>, steps = array<i64: 2>}
// REMARK: dnn-plan-memory.mlir:[[# @LINE + 3]]:3: remark: [dnn-plan-memory] not fused into its buffer: it has steps: the elements are not contiguous
func.func @negative_implicit_slice_steps(%x: tensor<16xf32>) -> tensor<8xf32> {
  %a = dnn.eltwise relu %x : tensor<16xf32>
  %s = dnn.slice %a {starts = array<i64: 0>, ends = array<i64: 16>, steps = array<i64: 2>, dnn.implicit_slice = 0 : i64} : (tensor<16xf32>) -> tensor<8xf32>
  func.return %s : tensor<8xf32>
}
