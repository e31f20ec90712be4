// REQUIRES: libdnnl
// RUN: not %python -m dnnc.tools.run %s 2>&1 | filecheck %s

/// A missing weight file is reported at the dnn.weight op that names it.
// CHECK-NOT: Traceback
// CHECK: dnnc-run-missing-weight.mlir:[[# @LINE + 2]]:3: error: 'dnn.weight' op cannot read weight file '{{.*}}absent.npz' (key 'w'): No such file or directory
func.func @scale(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %w = dnn.weight "absent.npz", "w" : tensor<1x4x1x1xf32>
  %y = dnn.binary mul %x, %w : (tensor<1x4x2x2xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  func.return %y : tensor<1x4x2x2xf32>
}
