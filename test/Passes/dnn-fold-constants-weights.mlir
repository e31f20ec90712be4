// RUN: rm -rf %t && mkdir -p %t && cp %s %t/block.mlir
// RUN: %python -c "import numpy as np; np.savez('%t/block.npz', wei=np.full((2, 2, 1, 1), 2.0, np.float32), scale=np.array([1.0, 3.0], np.float32), zero=np.zeros(2, np.float32), one=np.ones(2, np.float32))"
// RUN: dnnc-opt %t/block.mlir -p dnn-fold-constants | filecheck %s
// RUN: %python -c "import numpy as np; w = np.load('%t/block.npz')['wei']; assert (w == 2.0).all(), w"
// RUN: mkdir -p %t/ir && cp %s %t/ir/block.mlir
// RUN: not dnnc-opt %t/ir/block.mlir -p dnn-fold-constants 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: dnnc-opt %t/ir/block.mlir -p 'dnn-fold-constants{weights-dir="%t"}' | filecheck %s

/// Relative to the IR file unless the weights-dir option says otherwise.
// MISSING: error: 'dnn.weight' op cannot read weight file

/// dnn.weight data (paths relative to the IR file) folds like dnn.constant; the folded weights
/// are new dnn.constant ops, the weight ops are erased, and the .npz file is left unchanged.
// CHECK-LABEL: func.func @conv2d_batch_norm_weights_folded
// CHECK-NOT:     dnn.weight
// CHECK:         %[[W:.*]] = dnn.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}6.000000e+00]], {{\[\[}}6.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK:         dnn.conv2d %src, %[[W]], %{{.*}} :
// CHECK-NOT:     dnn.batch_norm
func.func @conv2d_batch_norm_weights_folded(%src: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %wei = dnn.weight "block.npz", "wei" : tensor<2x2x1x1xf32>
  %scale = dnn.weight "block.npz", "scale" : tensor<2xf32>
  %zero = dnn.weight "block.npz", "zero" : tensor<2xf32>
  %one = dnn.weight "block.npz", "one" : tensor<2xf32>
  %c = dnn.conv2d %src, %wei : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = dnn.batch_norm %c, %scale, %zero, %zero, %one {epsilon = 0.0 : f32} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %n : tensor<1x2x4x4xf32>
}
