// RUN: dnnc-opt %s -p dnn-optimize | filecheck %s
// RUN: dnnc-opt %s --pass-pipeline='builtin.module(dnn-optimize,dnn-to-onednn,cse)' --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: not dnnc-opt %s -p 'dnn-optimize{level=3}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: dnnc-opt %s -p 'dnn-optimize{precision=bf16}' --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=BF16
// RUN: not dnnc-opt %s -p 'dnn-optimize{precision=f64}' 2>&1 | filecheck %s --check-prefix=PRECISION

/// dnn-optimize rewrites dnn ops only: a function without them is unchanged.
// CHECK-LABEL: func.func @unchanged
// CHECK-COUNT-2: arith.addi

/// Pipelines are expanded: dumps name the passes they ran, not the pipelines (dnn-to-onednn
/// leaves this function alone: it has no tensors).
// DUMP-NOT: IR Dump After dnn-optimize
// DUMP:     // -----// IR Dump After dnn-recover-gelu //----- //
// DUMP:     // -----// IR Dump After dnn-inplace //----- //
// DUMP:     // -----// IR Dump After dnn-plan-memory //----- //
// DUMP:     // -----// IR Dump After convert-dnn-to-onednn //----- //
// DUMP:     // -----// IR Dump After onednn-verify-buffers //----- //
// DUMP:     // -----// IR Dump After cse //----- //
// DUMP-NOT: IR Dump After

/// precision=bf16 puts dnn-assign-precision right after the kernels are chosen (what it
/// changes depends on the CPU: dnn-assign-precision's own tests); f32 and bf16 only.
// BF16:     // -----// IR Dump After dnn-select-kernels //----- //
// BF16:     // -----// IR Dump After dnn-assign-precision //----- //
// BF16:     // -----// IR Dump After dnn-assign-layouts //----- //
// PRECISION: error: invalid options for pass 'dnn-optimize': precision=f64 is not one of f32, bf16

// OPTION-NOT: Traceback
// OPTION:     error: invalid options for pass 'dnn-optimize': Provided arguments ["level"] not found
func.func @unchanged(%a: i32) -> i32 {
  %x = arith.addi %a, %a : i32
  %y = arith.addi %a, %a : i32
  %z = arith.muli %x, %y : i32
  func.return %z : i32
}
