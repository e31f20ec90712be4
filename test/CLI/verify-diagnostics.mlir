// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s

/// Diagnostics replace the failing piece's output on stdout, and the exit status is 0.
// CHECK:      verify-diagnostics.mlir:[[# @LINE + 3]]:3: error: 'func.return' op Expected arguments to have the same types
// CHECK:      // -----
func.func @bad(%a: i32) -> i32 {
  func.return %a, %a : i32, i32
}

// -----

// CHECK-LABEL: func.func @good
func.func @good() {
  func.return
}
