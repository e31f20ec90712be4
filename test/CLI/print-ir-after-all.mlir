// RUN: dnnc-opt %s -p cse,dce --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: dnnc-opt %s -p cse,dce --print-ir-after-all 2>/dev/null | filecheck %s --check-prefix=STDOUT

/// Each pass's IR goes to stderr, headed like mlir-opt's dumps, in pipeline order.
// CHECK:      // -----// IR Dump After cse //----- //
// CHECK:        %[[X:.*]] = arith.addi %a, %c : i32
// CHECK-NEXT:   %{{.*}} = arith.muli %[[X]], %[[X]] : i32
// CHECK:      // -----// IR Dump After dce //----- //
// CHECK:      func.func @twice_added

/// stdout carries only the final IR.
// STDOUT-NOT: IR Dump After
// STDOUT:     func.func @twice_added
func.func @twice_added(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %x = arith.addi %a, %c : i32
  %y = arith.addi %a, %c : i32
  %z = arith.muli %x, %y : i32
  func.return %z : i32
}
