// RUN: not dnnc-opt %s --split-input-file 2>&1 | filecheck %s
// CHECK-NOT: Traceback

/// The verifier names the failing op, at its own line, like mlir-opt.
func.func @return_type_mismatch(%a: i32) -> i32 {
  %c = arith.constant 1 : i64
  // CHECK: verify-errors.mlir:[[# @LINE + 3]]:3: error: 'func.return' op Expected arguments to have the same types as the function output types
  // CHECK-NEXT: {{^  func.return %c : i64$}}
  // CHECK-NEXT: {{^  \^$}}
  func.return %c : i64
}

// -----

/// A function body without its terminator.
func.func @missing_terminator() {
  // CHECK: verify-errors.mlir:[[# @LINE + 1]]:3: error: 'arith.constant' op Operation arith.constant terminates block in single-block region but is not a terminator
  %c = arith.constant 1 : i32
}
