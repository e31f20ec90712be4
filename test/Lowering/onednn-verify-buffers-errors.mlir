// RUN: not dnnc-opt %s --split-input-file -p onednn-verify-buffers 2>&1 | filecheck %s
// CHECK-NOT: Traceback

/// %b's buffer overlaps %a's second half, and %a is read after %b was written.
// CHECK: onednn-verify-buffers-errors.mlir:[[# @LINE + 6]]:3: error: 'onednn.primitive' op (binary) reads %a, but bytes [2048, 4096) of its storage were overwritten by %b (onednn.primitive at {{.*}}onednn-verify-buffers-errors.mlir:[[# @LINE + 5]]:3)
func.func @negative_overlapping_live_buffers(%x: !onednn.memory<1x16x8x8xf32>, %out: !onednn.memory<1x16x8x8xf32>) attributes {onednn.arena_bytes = 8192 : i64, onednn.inputs = ["x"]} {
  %a = onednn.arena_view 0 : !onednn.memory<1x16x8x8xf32>
  %b = onednn.arena_view 2048 : !onednn.memory<1x16x8x8xf32>
  onednn.primitive eltwise ins(src = %x : !onednn.memory<1x16x8x8xf32>) outs(dst = %a : !onednn.memory<1x16x8x8xf32>) {alg = "relu"}
  onednn.primitive eltwise ins(src = %x : !onednn.memory<1x16x8x8xf32>) outs(dst = %b : !onednn.memory<1x16x8x8xf32>) {alg = "relu"}
  onednn.primitive binary ins(src_0 = %a : !onednn.memory<1x16x8x8xf32>, src_1 = %b : !onednn.memory<1x16x8x8xf32>) outs(dst = %out : !onednn.memory<1x16x8x8xf32>) {alg = "add"}
  func.return
}

// -----

/// The caller's input must never be overwritten.
// CHECK: onednn-verify-buffers-errors.mlir:[[# @LINE + 2]]:3: error: 'onednn.primitive' op (eltwise) writes into %x, which the caller or a constant owns
func.func @negative_write_into_input(%x: !onednn.memory<8xf32>, %out: !onednn.memory<8xf32>) attributes {onednn.arena_bytes = 0 : i64, onednn.inputs = ["x"]} {
  onednn.primitive eltwise ins(src = %x : !onednn.memory<8xf32>) outs(dst = %x : !onednn.memory<8xf32>) {alg = "relu"}
  onednn.primitive eltwise ins(src = %x : !onednn.memory<8xf32>) outs(dst = %out : !onednn.memory<8xf32>) {alg = "relu"}
  func.return
}

// -----

/// An arena buffer read before anything wrote it.
// CHECK: onednn-verify-buffers-errors.mlir:[[# @LINE + 3]]:3: error: 'onednn.primitive' op (eltwise) reads %a before anything wrote it
func.func @negative_read_uninitialized(%x: !onednn.memory<8xf32>, %out: !onednn.memory<8xf32>) attributes {onednn.arena_bytes = 64 : i64, onednn.inputs = ["x"]} {
  %a = onednn.arena_view 0 : !onednn.memory<8xf32>
  onednn.primitive eltwise ins(src = %a : !onednn.memory<8xf32>) outs(dst = %out : !onednn.memory<8xf32>) {alg = "relu"}
  func.return
}

// -----

/// A result the function never writes.
// CHECK: onednn-verify-buffers-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op result 0 (%out) is never written
func.func @negative_result_not_written(%x: !onednn.memory<8xf32>, %out: !onednn.memory<8xf32>) attributes {onednn.arena_bytes = 0 : i64, onednn.inputs = ["x"]} {
  func.return
}
