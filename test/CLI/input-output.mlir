// RUN: not dnnc-opt %t.no-such-file.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: dnnc-opt < %s | filecheck %s
// RUN: dnnc-opt %s -o %t.out.mlir && filecheck %s --input-file=%t.out.mlir
// RUN: dnnc-opt %t.out.mlir | filecheck %s
// RUN: printf '// nothing but a comment\n' | dnnc-opt | filecheck %s --check-prefix=EMPTY
// RUN: not dnnc-opt %s --unknown-flag 2>&1 | filecheck %s --check-prefix=FLAG

// MISSING-NOT: Traceback
// MISSING:     error: could not open input file '{{.*}}no-such-file.mlir': No such file or directory

/// stdin in, -o out, and the output parses again.
// CHECK-LABEL: func.func @round_trip
// CHECK:         arith.constant 7 : i32
func.func @round_trip() -> i32 {
  %c = arith.constant 7 : i32
  func.return %c : i32
}

/// An input without ops is an empty module, as in mlir-opt.
// EMPTY: builtin.module {
// EMPTY-NEXT: }

// FLAG: error: unrecognized arguments: --unknown-flag
