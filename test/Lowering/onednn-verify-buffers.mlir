// RUN: dnnc-opt %s --split-input-file -p onednn-verify-buffers | filecheck %s


/// Ping-pong between two arena buffers, in-place relu, result written: accepted unchanged.
// CHECK-LABEL: func.func @accepted_chain_with_inplace
// CHECK: onednn.primitive eltwise ins(src = %a {{.*}}) outs(dst = %a
func.func @accepted_chain_with_inplace(%x: !onednn.memory<1x16x8x8xf32>, %out: !onednn.memory<1x16x8x8xf32>) attributes {onednn.arena_bytes = 8192 : i64, onednn.inputs = ["x"]} {
  %a = onednn.arena_view 0 : !onednn.memory<1x16x8x8xf32, nChw16c>
  onednn.primitive reorder ins(src = %x : !onednn.memory<1x16x8x8xf32>) outs(dst = %a : !onednn.memory<1x16x8x8xf32, nChw16c>)
  onednn.primitive eltwise ins(src = %a : !onednn.memory<1x16x8x8xf32, nChw16c>) outs(dst = %a : !onednn.memory<1x16x8x8xf32, nChw16c>) {alg = "relu"}
  onednn.primitive reorder ins(src = %a : !onednn.memory<1x16x8x8xf32, nChw16c>) outs(dst = %out : !onednn.memory<1x16x8x8xf32>)
  func.return
}

// -----

/// A reshape view reads what was written through its source.
// CHECK-LABEL: func.func @accepted_read_through_reshape
func.func @accepted_read_through_reshape(%x: !onednn.memory<4x16xf32>, %out: !onednn.memory<64xf32>) attributes {onednn.arena_bytes = 256 : i64, onednn.inputs = ["x"]} {
  %a = onednn.arena_view 0 : !onednn.memory<4x16xf32>
  %v = onednn.reshape %a : !onednn.memory<4x16xf32> -> !onednn.memory<64xf32>
  onednn.primitive eltwise ins(src = %x : !onednn.memory<4x16xf32>) outs(dst = %a : !onednn.memory<4x16xf32>) {alg = "relu"}
  onednn.primitive eltwise ins(src = %v : !onednn.memory<64xf32>) outs(dst = %out : !onednn.memory<64xf32>) {alg = "tanh"}
  func.return
}

