// RUN: rm -rf %t && mkdir -p %t && cp %s %t/cast.mlir
// RUN: %python -c "import numpy as np; np.savez('%t/w.npz', w=np.array([1.0, 1.00390625, 3.14159, -2.0], np.float32))"
// RUN: dnnc-opt %t/cast.mlir -p dnn-remove-redundant-reorders | filecheck %s

/// A weight cast to bf16 (dnn-assign-precision) is read from its file and cast once, here:
/// a bf16 constant, rounded to nearest even (1 + 2^-8 is a tie: 1.0; 3.14159 is 3.140625, which
/// the printer shows with 6 digits), and no cast at run time.
// CHECK-LABEL: func.func @cast_of_weight
// CHECK-NEXT:    %[[C:.*]] = dnn.constant dense<[1.000000e+00, 1.000000e+00, 3.140620e+00, -2.000000e+00]> : tensor<4xbf16>
// CHECK-NEXT:    func.return %[[C]]
func.func @cast_of_weight() -> tensor<4xbf16> {
  %w = dnn.weight "w.npz", "w" : tensor<4xf32>
  %c = dnn.cast %w : (tensor<4xf32>) -> tensor<4xbf16>
  func.return %c : tensor<4xbf16>
}
