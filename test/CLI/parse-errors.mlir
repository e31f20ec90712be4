// RUN: not dnnc-opt %s --split-input-file 2>&1 | filecheck %s
// CHECK-NOT: Traceback

/// An unknown op of a registered dialect.
func.func @unknown_op() {
  // CHECK: parse-errors.mlir:[[# @LINE + 3]]:3: error: unknown op 'func.frobnicate'{{$}}
  // CHECK-NEXT: {{^  func.frobnicate$}}
  // CHECK-NEXT: {{^  \^+$}}
  func.frobnicate
  func.return
}

// -----

/// An op of a dialect nobody registered.
func.func @unknown_dialect_op(%a: i32) -> i32 {
  // CHECK: parse-errors.mlir:[[# @LINE + 1]]:8: error: unknown op 'foo.bar' (dialect 'foo' is not registered)
  %y = foo.bar %a : i32
  func.return %y : i32
}

// -----

/// A type of a dialect nobody registered.
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:29: error: unknown type '!foo.t' (dialect 'foo' is not registered)
func.func @unknown_type(%a: !foo.t) {
  func.return
}

// -----

/// Malformed syntax: the constant's value is missing.
func.func @malformed() {
  // CHECK: parse-errors.mlir:[[# @LINE + 1]]:23: error: attribute expected
  %x = arith.constant : i32
  func.return
}

// -----

/// A value used but never defined.
func.func @undefined_value() -> i32 {
  // CHECK: parse-errors.mlir:[[# @LINE + 1]]:3: error: values used but not defined: [%nope]
  func.return %nope : i32
}
