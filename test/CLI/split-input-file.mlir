// RUN: not dnnc-opt %s --split-input-file 2>%t.err | filecheck %s
// RUN: filecheck %s --input-file=%t.err --check-prefix=ERR

/// Every piece is processed, even after one fails; outputs are separated like the input.
// CHECK-LABEL: func.func @first
// CHECK:       // -----
// CHECK-NEXT:  // -----
// CHECK-LABEL: func.func @third
func.func @first() {
  func.return
}

// -----

/// Errors carry the line numbers of the original file.
// ERR: split-input-file.mlir:[[# @LINE + 2]]:3: error: values used but not defined: [%nope]
func.func @second() -> i32 {
  func.return %nope : i32
}

// -----

func.func @third() {
  func.return
}
