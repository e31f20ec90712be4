// RUN: dnnc-opt %s --split-input-file -p 'dnn-inplace{annotate-only=true}' | filecheck %s
// RUN: dnnc-opt %s --split-input-file -p 'dnn-inplace{annotate-only=true},dnn-plan-memory' | filecheck %s --check-prefix=PLAN

/// annotate_only writes the decisions as dnn.inplace_candidate (-1: refused), analysing the
/// chain as if they were made.
// CHECK-LABEL: func.func @chain_annotated
// CHECK:         %a = dnn.eltwise relu %x {dnn.inplace_candidate = array<i64: -1>}
// CHECK:         %b = dnn.eltwise tanh %a {dnn.inplace_candidate = array<i64: 0>}
// CHECK:         %c = dnn.eltwise exp %b {dnn.inplace_candidate = array<i64: 0>}
// CHECK-NOT:     dnn.inplace =
/// The planner ignores candidates: %a and %b in two buffers, no sharing (256 bytes each).
// PLAN:          dnn.arena_bytes = 512 : i64
// PLAN-NOT:      dnn.inplace =
func.func @chain_annotated(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  %b = dnn.eltwise tanh %a : tensor<64xf32>
  %c = dnn.eltwise exp %b : tensor<64xf32>
  func.return %c : tensor<64xf32>
}

// -----

/// A residual add is annotated, not rewritten into a sum post-op.
// CHECK-LABEL: func.func @residual_annotated
// CHECK:         {dnn.inplace_candidate = array<i64: 2>, post_ops = [#dnn.binary<add>]}
func.func @residual_annotated(%x: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %r = dnn.eltwise relu %x : tensor<1x8x4x4xf32>
  %y = dnn.conv2d %x, %wei post_args(%r : tensor<1x8x4x4xf32>) {post_ops = [#dnn.binary<add>]} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}
