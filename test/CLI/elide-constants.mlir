// RUN: dnnc-opt %s | filecheck %s --check-prefix=FULL
// RUN: dnnc-opt %s --elide-constants-larger-than 4 | filecheck %s --check-prefix=ELIDED
// RUN: dnnc-opt %s -p cse --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: dnnc-opt %s -p cse --print-ir-after-all --print-constants-in-full 2>&1 >/dev/null | filecheck %s --check-prefix=FULL
// RUN: dnnc-opt %s --elide-constants-larger-than 4 | not dnnc-opt 2>&1 | filecheck %s --check-prefix=REREAD

/// The program's output keeps every constant (it is read back by the next tool) unless asked.
// FULL:     dnn.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<6xf32>
// FULL:     dnn.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>

/// Elided above the limit, as MLIR spells it; small constants stay readable.
// ELIDED:   dnn.constant dense_resource<__elided__> : tensor<6xf32>
// ELIDED:   dnn.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>

/// IR dumps elide above 16 elements by default: the 6-element constant stays, the 32 go.
// DUMP:      IR Dump After cse
// DUMP:      dnn.constant dense<[0.000000e+00, 1.000000e+00
// DUMP:      dnn.constant dense_resource<__elided__> : tensor<32xf32>

/// Elided IR is refused where it is read, not read as a wrong value.
// REREAD:   <stdin>:3:{{[0-9]+}}: error: this constant was elided when the IR was printed
func.func @f() -> (tensor<6xf32>, tensor<2xf32>, tensor<32xf32>) {
  %a = dnn.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<6xf32>
  %b = dnn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = dnn.constant dense<7.0> : tensor<32xf32>
  func.return %a, %b, %c : tensor<6xf32>, tensor<2xf32>, tensor<32xf32>
}
