// RUN: not dnnc-opt %s --split-input-file -p convert-dnn-to-onednn 2>&1 | filecheck %s --check-prefix=NOPLAN
// RUN: not dnnc-opt %s --split-input-file -p dnn-guard-special-values,dnn-plan-memory,convert-dnn-to-onednn 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// NOPLAN-NOT: Traceback

/// Without dnn-plan-memory there is nothing to place the values in.
// NOPLAN: convert-dnn-to-onednn-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op @no_plan has no memory plan: run dnn-plan-memory first
func.func @no_plan(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  func.return %a : tensor<64xf32>
}

// -----

/// Reference kernels read plain memories only.
// CHECK: convert-dnn-to-onednn-errors.mlir:[[# @LINE + 3]]:3: error: 'dnn.top_k' op runs a reference kernel, which needs plain layouts, but src has layout nChw16c (dnn.reorder it to plain first)
func.func @negative_reference_blocked(%x: tensor<1x16x4x4xf32>) -> (tensor<1x16x4x2xf32, #dnn.layout<nChw16c>>, tensor<1x16x4x2xi64, #dnn.layout<nChw16c>>) {
  %b = dnn.reorder %x : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  %v, %i = dnn.top_k %b {k = 2 : i64} : (tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>) -> (tensor<1x16x4x2xf32, #dnn.layout<nChw16c>>, tensor<1x16x4x2xi64, #dnn.layout<nChw16c>>)
  func.return %v, %i : tensor<1x16x4x2xf32, #dnn.layout<nChw16c>>, tensor<1x16x4x2xi64, #dnn.layout<nChw16c>>
}

// -----

/// Dynamic shapes have no memory descriptor (here the argument's).
// CHECK: convert-dnn-to-onednn-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op needs static tensor types to lower, got tensor<?x64xf32>
func.func @negative_dynamic_shape(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %a = dnn.eltwise relu %x : tensor<?x64xf32>
  func.return %a : tensor<?x64xf32>
}

// -----

/// A dynamic intermediate value has no arena size.
// CHECK: convert-dnn-to-onednn-errors.mlir:[[# @LINE + 3]]:3: error: 'dnn.eltwise' op needs static tensor types to lower, got tensor<?x64xf32>
func.func @negative_dynamic_intermediate(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %a = dnn.reshape %x : (tensor<2x64xf32>) -> tensor<?x64xf32>
  %b = dnn.eltwise relu %a : tensor<?x64xf32>
  %c = dnn.reshape %b : (tensor<?x64xf32>) -> tensor<2x64xf32>
  %d = dnn.eltwise relu %c : tensor<2x64xf32>
  func.return %d : tensor<2x64xf32>
}

// -----

/// An in-place request the plan would refuse (over a caller's input) but that is still in the IR:
/// the plan (here hand-written) is stale, the lowering refuses to guess.
// NOPLAN: convert-dnn-to-onednn-errors.mlir:[[# @LINE + 2]]:3: error: 'dnn.eltwise' op has an unplanned dnn.inplace (operand 0 (%x) lives in a function argument, which is read-only): run dnn-plan-memory
func.func @negative_unplanned_inplace(%x: tensor<64xf32>) -> tensor<64xf32> attributes {dnn.arena_bytes = 0 : i64} {
  %a = dnn.eltwise relu %x {dnn.inplace = array<i64: 0>, dnn.arena_offsets = array<i64: -1>} : tensor<64xf32>
  func.return %a : tensor<64xf32>
}

// -----

/// Without dnn-guard-special-values the executor would not know which inputs to check.
// NOPLAN: convert-dnn-to-onednn-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op @no_guards has no dnn.special_value_guards: run dnn-guard-special-values first
func.func @no_guards(%x: tensor<64xf32>) -> tensor<64xf32> attributes {dnn.arena_bytes = 256 : i64} {
  %a = dnn.eltwise relu %x {dnn.arena_offsets = array<i64: 0>} : tensor<64xf32>
  func.return %a : tensor<64xf32>
}
