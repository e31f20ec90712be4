// RUN: not dnnc-opt %s --split-input-file 2>&1 | filecheck %s
// CHECK-NOT: Traceback

/// A dnn op's verifier failure is reported at that op, like mlir-opt.
func.func @negative_reorder_changes_shape(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x8xf32> {
  // CHECK: dnn-diagnostics.mlir:[[# @LINE + 3]]:3: error: 'dnn.reorder' op result shape 1x16x4x8 does not match
  // CHECK-NEXT: {{^  %y = dnn.reorder}}
  // CHECK-NEXT: {{^  \^$}}
  %y = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x8xf32>
  func.return %y : tensor<1x16x4x8xf32>
}

// -----

/// An attribute rejected while parsing is reported at its text.
// CHECK: dnn-diagnostics.mlir:[[# @LINE + 1]]:75: error: 'nope' is not a layout
func.func @negative_unknown_layout(%src: tensor<1x16x4x4xf32, #dnn.layout<nope>>) {
  func.return
}

// -----

/// An op the dnn dialect does not have.
func.func @negative_unknown_dnn_op(%src: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: dnn-diagnostics.mlir:[[# @LINE + 1]]:8: error: unknown op 'dnn.frobnicate'{{$}}
  %y = dnn.frobnicate %src : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
