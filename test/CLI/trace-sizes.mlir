// RUN: dnnc-opt %s --trace-sizes=3,3 | filecheck %s
// RUN: not dnnc-opt %s --trace-sizes=3 2>&1 | filecheck %s --check-prefix=FEW
// RUN: not dnnc-opt %s --trace-sizes=3,x 2>&1 | filecheck %s --check-prefix=WORD
// RUN: not dnnc-opt %s --trace-sizes=0,2 2>&1 | filecheck %s --check-prefix=ZERO

/// --trace-sizes specializes each dynamic function to symbols of those values, in argument
/// order (s0 = 3, s1 = 3), and prints the guards: the add of two symbolic sizes holds only
/// while they are equal.
// CHECK:       // guard specialize: s0 == s1
// CHECK-LABEL: func.func @add(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>)
// FEW:         error: --trace-sizes: @add has more ? input dimensions than the 1 sizes given
// WORD:        error: --trace-sizes: expected sizes such as 1,16, got '3,x'
// ZERO:        error: --trace-sizes: sizes must be at least 1, got '0,2'
// FEW-NOT:     Traceback
func.func @add(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = dnn.binary add %a, %b : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  func.return %c : tensor<?x4xf32>
}
