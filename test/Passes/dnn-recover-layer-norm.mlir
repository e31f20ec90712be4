// RUN: dnnc-opt %s -p dnn-recover-layer-norm --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-recover-layer-norm --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// torch's LayerNorm as exported before opset 17 (eps 1e-5, the default, so not printed): gamma
/// and beta of shape [1, C] are reshaped to [C]; the chain and the eps constant go.
// CHECK-LABEL: func.func @layer_norm_affine
// CHECK-DAG:     %[[S:.*]] = dnn.reshape %gamma : (tensor<1x8xf32>) -> tensor<8xf32>
// CHECK-DAG:     %[[B:.*]] = dnn.reshape %beta : (tensor<1x8xf32>) -> tensor<8xf32>
// CHECK:         %[[Y:.*]] = dnn.layer_norm %x scale(%[[S]] : tensor<8xf32>) shift(%[[B]] : tensor<8xf32>) : tensor<2x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
// REMARK: remark: [dnn-recover-layer-norm] recovered layer_norm
func.func @layer_norm_affine(%x: tensor<2x8xf32>, %gamma: tensor<1x8xf32>, %beta: tensor<1x8xf32>) -> tensor<2x8xf32> {
  %mu = dnn.reduce mean %x {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = dnn.binary sub %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq = dnn.eltwise square %d : tensor<2x8xf32>
  %var = dnn.reduce mean %sq {axes = array<i64: 1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = dnn.constant dense<1.000000e-05> : tensor<1x1xf32>
  %ve = dnn.binary add %var, %eps : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  %sd = dnn.eltwise sqrt %ve : tensor<2x1xf32>
  %n = dnn.binary div %d, %sd : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %s = dnn.binary mul %n, %gamma : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %y = dnn.binary add %s, %beta : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

/// No affine part, pow {1, 2} for the square, eps on the left, rank 3: scale and shift absent.
// CHECK-LABEL: func.func @layer_norm_plain_pow
// CHECK-NEXT:    %[[Y:.*]] = dnn.layer_norm %x {epsilon = 1.000000e-12 : f32} : tensor<1x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @layer_norm_plain_pow(%x: tensor<1x4x16xf32>) -> tensor<1x4x16xf32> {
  %mu = dnn.reduce mean %x {axes = array<i64: 2>} : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %d = dnn.binary sub %x, %mu : (tensor<1x4x16xf32>, tensor<1x4x1xf32>) -> tensor<1x4x16xf32>
  %sq = dnn.eltwise pow %d {alpha = 1.0 : f32, beta = 2.0 : f32} : tensor<1x4x16xf32>
  %var = dnn.reduce mean %sq {axes = array<i64: -1>} : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %eps = dnn.constant dense<1.000000e-12> : tensor<1x1x1xf32>
  %ve = dnn.binary add %eps, %var : (tensor<1x1x1xf32>, tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %sd = dnn.eltwise sqrt %ve : tensor<1x4x1xf32>
  %n = dnn.binary div %d, %sd : (tensor<1x4x16xf32>, tensor<1x4x1xf32>) -> tensor<1x4x16xf32>
  func.return %n : tensor<1x4x16xf32>
}

// -----

/// The statistics are over axis 0, not the last axis: this is not a layer norm.
// CHECK-LABEL: func.func @negative_layer_norm_other_axis
// CHECK-NOT:     dnn.layer_norm
// REMARK: remark: [dnn-recover-layer-norm] not recovered: the mean reduces axes [0], not only the last one
func.func @negative_layer_norm_other_axis(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mu = dnn.reduce mean %x {axes = array<i64: 0>} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %d = dnn.binary sub %x, %mu : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %sq = dnn.eltwise square %d : tensor<2x8xf32>
  %var = dnn.reduce mean %sq {axes = array<i64: 0>} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %eps = dnn.constant dense<1.000000e-05> : tensor<1x1xf32>
  %ve = dnn.binary add %var, %eps : (tensor<1x8xf32>, tensor<1x1xf32>) -> tensor<1x8xf32>
  %sd = dnn.eltwise sqrt %ve : tensor<1x8xf32>
  %n = dnn.binary div %d, %sd : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  func.return %n : tensor<2x8xf32>
}

// -----

/// The centred value is also returned: the chain's intermediate would be lost.
// CHECK-LABEL: func.func @negative_layer_norm_intermediate_used
// CHECK-NOT:     dnn.layer_norm
// REMARK: remark: [dnn-recover-layer-norm] not recovered: x - mean has another use (func.return)
func.func @negative_layer_norm_intermediate_used(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %mu = dnn.reduce mean %x {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = dnn.binary sub %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq = dnn.eltwise square %d : tensor<2x8xf32>
  %var = dnn.reduce mean %sq {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = dnn.constant dense<1.000000e-05> : tensor<1x1xf32>
  %ve = dnn.binary add %var, %eps : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  %sd = dnn.eltwise sqrt %ve : tensor<2x1xf32>
  %n = dnn.binary div %d, %sd : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %n, %d : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

/// eps is not one constant value: the per-row values are no layer norm epsilon.
// CHECK-LABEL: func.func @negative_layer_norm_eps_not_splat
// CHECK-NOT:     dnn.layer_norm
// REMARK: remark: [dnn-recover-layer-norm] not recovered: eps is not one value
func.func @negative_layer_norm_eps_not_splat(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mu = dnn.reduce mean %x {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = dnn.binary sub %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq = dnn.binary mul %d, %d : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %var = dnn.reduce mean %sq {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = dnn.constant dense<[[1.0e-05], [2.0e-05]]> : tensor<2x1xf32>
  %ve = dnn.binary add %var, %eps : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %sd = dnn.eltwise sqrt %ve : tensor<2x1xf32>
  %n = dnn.binary div %d, %sd : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %n : tensor<2x8xf32>
}

// -----

/// mean - x is the negated centred value: not the layer norm's x - mean.
// CHECK-LABEL: func.func @negative_layer_norm_mean_minus_x
// CHECK-NOT:     dnn.layer_norm
// CHECK:         dnn.binary sub %mu, %x
// CHECK-NOT:     dnn.layer_norm
// REMARK: remark: [dnn-recover-layer-norm] not recovered: the mean is not subtracted from x
func.func @negative_layer_norm_mean_minus_x(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mu = dnn.reduce mean %x {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = dnn.binary sub %mu, %x : (tensor<2x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %sq = dnn.eltwise square %d : tensor<2x8xf32>
  %var = dnn.reduce mean %sq {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = dnn.constant dense<1.000000e-05> : tensor<1x1xf32>
  %ve = dnn.binary add %var, %eps : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  %sd = dnn.eltwise sqrt %ve : tensor<2x1xf32>
  %n = dnn.binary div %d, %sd : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %n : tensor<2x8xf32>
}

// -----

/// The division carries a relu post-op: a layer_norm would drop it.
// CHECK-LABEL: func.func @negative_layer_norm_div_post_ops
// CHECK-NOT:     dnn.layer_norm
// CHECK:         dnn.binary div %d, %sd {post_ops = [#dnn.eltwise<relu>]}
// CHECK-NOT:     dnn.layer_norm
// REMARK: remark: [dnn-recover-layer-norm] not recovered: the div of the standard deviation has post-ops
func.func @negative_layer_norm_div_post_ops(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %mu = dnn.reduce mean %x {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %d = dnn.binary sub %x, %mu : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %sq = dnn.eltwise square %d : tensor<2x8xf32>
  %var = dnn.reduce mean %sq {axes = array<i64: -1>} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  %eps = dnn.constant dense<1.000000e-05> : tensor<1x1xf32>
  %ve = dnn.binary add %var, %eps : (tensor<2x1xf32>, tensor<1x1xf32>) -> tensor<2x1xf32>
  %sd = dnn.eltwise sqrt %ve : tensor<2x1xf32>
  %n = dnn.binary div %d, %sd {post_ops = [#dnn.eltwise<relu>]} : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  func.return %n : tensor<2x8xf32>
}
