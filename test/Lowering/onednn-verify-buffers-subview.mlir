// RUN: dnnc-opt %s --split-input-file -p onednn-verify-buffers --verify-diagnostics 2>&1 | filecheck %s
// CHECK-NOT: Traceback

/// An implicit concat: two producers write the halves; reading the whole reads both.
// CHECK-LABEL: func.func @accepted_implicit_concat
func.func @accepted_implicit_concat(%x: !onednn.memory<2x4xf32>, %out: !onednn.memory<4x4xf32>) attributes {onednn.arena_bytes = 64 : i64, onednn.inputs = ["x"]} {
  %c = onednn.arena_view 0 : !onednn.memory<4x4xf32>
  %a = onednn.subview %c[0] : !onednn.memory<4x4xf32> -> !onednn.memory<2x4xf32>
  onednn.primitive eltwise ins(src = %x : !onednn.memory<2x4xf32>) outs(dst = %a : !onednn.memory<2x4xf32>) {alg = "relu"}
  %b = onednn.subview %c[32] : !onednn.memory<4x4xf32> -> !onednn.memory<2x4xf32>
  onednn.primitive eltwise ins(src = %x : !onednn.memory<2x4xf32>) outs(dst = %b : !onednn.memory<2x4xf32>) {alg = "tanh"}
  onednn.primitive eltwise ins(src = %a : !onednn.memory<2x4xf32>) outs(dst = %out : !onednn.memory<4x4xf32>) {alg = "exp"}
  onednn.primitive eltwise ins(src = %c : !onednn.memory<4x4xf32>) outs(dst = %out : !onednn.memory<4x4xf32>) {alg = "exp"}
  func.return
}

// -----

/// Two parts that overlap: the second clobbers the first's last 16 bytes.
// CHECK: error: 'onednn.primitive' op (eltwise) reads %c, but bytes [16, 32) of its storage were overwritten by %b
func.func @negative_overlapping_parts(%x: !onednn.memory<2x4xf32>, %out: !onednn.memory<4x4xf32>) attributes {onednn.arena_bytes = 64 : i64, onednn.inputs = ["x"]} {
  %c = onednn.arena_view 0 : !onednn.memory<4x4xf32>
  %a = onednn.subview %c[0] : !onednn.memory<4x4xf32> -> !onednn.memory<2x4xf32>
  onednn.primitive eltwise ins(src = %x : !onednn.memory<2x4xf32>) outs(dst = %a : !onednn.memory<2x4xf32>) {alg = "relu"}
  %b = onednn.subview %c[16] : !onednn.memory<4x4xf32> -> !onednn.memory<2x4xf32>
  onednn.primitive eltwise ins(src = %x : !onednn.memory<2x4xf32>) outs(dst = %b : !onednn.memory<2x4xf32>) {alg = "tanh"}
  onednn.primitive eltwise ins(src = %c : !onednn.memory<4x4xf32>) outs(dst = %out : !onednn.memory<4x4xf32>) {alg = "exp"}
  func.return
}

// -----

/// Only one part written: the concat reads bytes nothing wrote.
// CHECK: error: 'onednn.primitive' op (eltwise) reads %c, part of which was never written
func.func @negative_part_missing(%x: !onednn.memory<2x4xf32>, %out: !onednn.memory<4x4xf32>) attributes {onednn.arena_bytes = 64 : i64, onednn.inputs = ["x"]} {
  %c = onednn.arena_view 0 : !onednn.memory<4x4xf32>
  %a = onednn.subview %c[0] : !onednn.memory<4x4xf32> -> !onednn.memory<2x4xf32>
  onednn.primitive eltwise ins(src = %x : !onednn.memory<2x4xf32>) outs(dst = %a : !onednn.memory<2x4xf32>) {alg = "relu"}
  onednn.primitive eltwise ins(src = %c : !onednn.memory<4x4xf32>) outs(dst = %out : !onednn.memory<4x4xf32>) {alg = "exp"}
  func.return
}

// -----

/// A slice view read after its source was overwritten in place.
// CHECK: error: 'onednn.primitive' op (eltwise) reads %s, but bytes [32, 64) of its storage were overwritten by %c
func.func @negative_slice_view_clobbered(%x: !onednn.memory<4x4xf32>, %out: !onednn.memory<2x4xf32>) attributes {onednn.arena_bytes = 64 : i64, onednn.inputs = ["x"]} {
  %c = onednn.arena_view 0 : !onednn.memory<4x4xf32>
  onednn.primitive eltwise ins(src = %x : !onednn.memory<4x4xf32>) outs(dst = %c : !onednn.memory<4x4xf32>) {alg = "relu"}
  %s = onednn.subview %c[32] : !onednn.memory<4x4xf32> -> !onednn.memory<2x4xf32>
  onednn.primitive eltwise ins(src = %c : !onednn.memory<4x4xf32>) outs(dst = %c : !onednn.memory<4x4xf32>) {alg = "tanh"}
  onednn.primitive eltwise ins(src = %s : !onednn.memory<2x4xf32>) outs(dst = %out : !onednn.memory<2x4xf32>) {alg = "exp"}
  func.return
}

// -----

/// A subview must stay inside its source.
// CHECK: error: 'onednn.subview' op bytes [48, 80) are not whole elements inside the 64 bytes of the source
func.func @negative_subview_outside() attributes {onednn.arena_bytes = 64 : i64, onednn.inputs = []} {
  %c = onednn.arena_view 0 : !onednn.memory<4x4xf32>
  %s = onednn.subview %c[48] : !onednn.memory<4x4xf32> -> !onednn.memory<2x4xf32>
  func.return
}
