// RUN: dnnc-opt %s --pass-pipeline='builtin.module(cse, dce)' | filecheck %s
// RUN: dnnc-opt %s -p 'builtin.module(cse,dce)' | filecheck %s
// RUN: not dnnc-opt %s --pass-pipeline='builtin.module(func.func(cse))' 2>&1 | filecheck %s --check-prefix=NESTED
// RUN: not dnnc-opt %s --pass-pipeline='func.func(cse)' 2>&1 | filecheck %s --check-prefix=ANCHOR
// RUN: not dnnc-opt %s -p cse --pass-pipeline='builtin.module(dce)' 2>&1 | filecheck %s --check-prefix=BOTH

/// MLIR's anchored syntax, with blanks, runs the same passes as `-p cse,dce`.
// CHECK-LABEL: func.func @duplicate_add
// CHECK:         arith.addi
// CHECK-NOT:     arith.addi

// NESTED-NOT: Traceback
// NESTED:     error: nested pass pipelines are not supported in 'builtin.module(func.func(cse))'
// ANCHOR-NOT: Traceback
// ANCHOR:     error: pass pipelines anchored on 'func.func' are not supported
// BOTH-NOT:   Traceback
// BOTH:       error: use either -p or --pass-pipeline, not both
func.func @duplicate_add(%a: i32) -> i32 {
  %x = arith.addi %a, %a : i32
  %y = arith.addi %a, %a : i32
  %z = arith.muli %x, %y : i32
  func.return %z : i32
}
