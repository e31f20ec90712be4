// RUN: dnnc-opt %s --mlir-print-debuginfo | filecheck %s
// RUN: dnnc-opt %s --mlir-print-debuginfo | dnnc-opt --mlir-print-debuginfo | filecheck %s

/// Every op carries the location of its first token; explicit locations are kept and round-trip.
// CHECK: func.func @located
// CHECK: arith.constant 1 : i32 loc("{{.*}}debuginfo.mlir":[[# @LINE + 4]]:3)
// CHECK: arith.constant 2 : i32 loc("given.py":7:1)
// CHECK: func.return %{{.*}} : i32 loc("{{.*}}debuginfo.mlir":[[# @LINE + 5]]:3)
func.func @located() -> i32 {
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32 loc("given.py":7:1)
  %sum = arith.addi %one, %two : i32
  func.return %sum : i32
}
