// RUN: dnnc-opt %s -p dnn-recover-gelu --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-recover-gelu --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: dnnc-opt %s -p dnn-propagate-special-values,dnn-recover-gelu --split-input-file | filecheck %s --check-prefix=PROPAGATE

/// torch's GELU(approximate="tanh") as exported: x * x * x, constants on the left, then
/// 0.5 * (x * (1 + tanh)). Every op of the chain and its constants go.
// CHECK-LABEL: func.func @gelu_tanh_torch_order
// CHECK-NEXT:    %[[Y:.*]] = dnn.eltwise gelu_tanh %x : tensor<2x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
// REMARK: remark: [dnn-recover-gelu] recovered gelu_tanh
/// Under dnn-propagate-special-values the chain stays (gelu_tanh gives NaN for +inf).
// PROPAGATE-LABEL: func.func @gelu_tanh_torch_order
// PROPAGATE-NOT:     dnn.eltwise gelu_tanh
// PROPAGATE:         dnn.eltwise tanh
// PROPAGATE-NOT:     dnn.eltwise gelu_tanh
// PROPAGATE:         func.return
func.func @gelu_tanh_torch_order(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sq = dnn.binary mul %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %cube = dnn.binary mul %x, %sq : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %k = dnn.constant dense<4.471500e-02> : tensor<1x1xf32>
  %kc = dnn.binary mul %k, %cube : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %inner = dnn.binary add %x, %kc : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = dnn.constant dense<0.797884583> : tensor<1x1xf32>
  %arg = dnn.binary mul %s, %inner : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = dnn.eltwise tanh %arg : tensor<2x8xf32>
  %one = dnn.constant dense<1.000000e+00> : tensor<1x1xf32>
  %a = dnn.binary add %one, %t : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %xa = dnn.binary mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %half = dnn.constant dense<5.000000e-01> : tensor<1x1xf32>
  %y = dnn.binary mul %half, %xa : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

/// Hugging Face's NewGELU: 0.5 * x * (1 + tanh(c * (x + 0.044715 * pow(x, 3)))), constants on
/// the right, x * 0.5 computed first.
// CHECK-LABEL: func.func @gelu_tanh_pow_half_first
// CHECK-NEXT:    %[[Y:.*]] = dnn.eltwise gelu_tanh %x : tensor<1x4x16xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @gelu_tanh_pow_half_first(%x: tensor<1x4x16xf32>) -> tensor<1x4x16xf32> {
  %half = dnn.constant dense<5.000000e-01> : tensor<1x1x1xf32>
  %xh = dnn.binary mul %x, %half : (tensor<1x4x16xf32>, tensor<1x1x1xf32>) -> tensor<1x4x16xf32>
  %cube = dnn.eltwise pow %x {alpha = 1.0 : f32, beta = 3.0 : f32} : tensor<1x4x16xf32>
  %k = dnn.constant dense<4.471500e-02> : tensor<1x1x1xf32>
  %kc = dnn.binary mul %cube, %k : (tensor<1x4x16xf32>, tensor<1x1x1xf32>) -> tensor<1x4x16xf32>
  %inner = dnn.binary add %kc, %x : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %s = dnn.constant dense<0.797884583> : tensor<1x1x1xf32>
  %arg = dnn.binary mul %inner, %s : (tensor<1x4x16xf32>, tensor<1x1x1xf32>) -> tensor<1x4x16xf32>
  %t = dnn.eltwise tanh %arg : tensor<1x4x16xf32>
  %one = dnn.constant dense<1.000000e+00> : tensor<1x1x1xf32>
  %a = dnn.binary add %t, %one : (tensor<1x4x16xf32>, tensor<1x1x1xf32>) -> tensor<1x4x16xf32>
  %y = dnn.binary mul %xh, %a : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  func.return %y : tensor<1x4x16xf32>
}

// -----

/// 0.04 is not GELU's cubic coefficient: another function, left alone.
// CHECK-LABEL: func.func @negative_gelu_tanh_wrong_constant
// CHECK:         dnn.eltwise tanh
// CHECK-NOT:     gelu_tanh
// REMARK: remark: [dnn-recover-gelu] not recovered: the cube's coefficient is [0.03999999910593033], expected 0.044715
func.func @negative_gelu_tanh_wrong_constant(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %cube = dnn.eltwise pow %x {alpha = 1.0 : f32, beta = 3.0 : f32} : tensor<2x8xf32>
  %k = dnn.constant dense<4.000000e-02> : tensor<1x1xf32>
  %kc = dnn.binary mul %k, %cube : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %inner = dnn.binary add %x, %kc : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = dnn.constant dense<0.797884583> : tensor<1x1xf32>
  %arg = dnn.binary mul %s, %inner : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = dnn.eltwise tanh %arg : tensor<2x8xf32>
  %one = dnn.constant dense<1.000000e+00> : tensor<1x1xf32>
  %a = dnn.binary add %one, %t : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %xa = dnn.binary mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %half = dnn.constant dense<5.000000e-01> : tensor<1x1xf32>
  %y = dnn.binary mul %half, %xa : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

/// The tanh's output is also returned: replacing the chain would lose it.
// CHECK-LABEL: func.func @negative_gelu_tanh_intermediate_used
// CHECK:         dnn.eltwise tanh
// CHECK-NOT:     gelu_tanh
// REMARK: remark: [dnn-recover-gelu] not recovered: tanh has another use, which would be lost
func.func @negative_gelu_tanh_intermediate_used(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %cube = dnn.eltwise pow %x {alpha = 1.0 : f32, beta = 3.0 : f32} : tensor<2x8xf32>
  %k = dnn.constant dense<4.471500e-02> : tensor<1x1xf32>
  %kc = dnn.binary mul %k, %cube : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %inner = dnn.binary add %x, %kc : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = dnn.constant dense<0.797884583> : tensor<1x1xf32>
  %arg = dnn.binary mul %s, %inner : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = dnn.eltwise tanh %arg : tensor<2x8xf32>
  %one = dnn.constant dense<1.000000e+00> : tensor<1x1xf32>
  %a = dnn.binary add %one, %t : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %xa = dnn.binary mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %half = dnn.constant dense<5.000000e-01> : tensor<1x1xf32>
  %y = dnn.binary mul %half, %xa : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y, %t : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

/// A plain tanh activation is no GELU.
// CHECK-LABEL: func.func @negative_plain_tanh
// CHECK:         dnn.eltwise tanh %x
// REMARK: remark: [dnn-recover-gelu] not recovered: the tanh argument is not a mul (a function argument)
func.func @negative_plain_tanh(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %t = dnn.eltwise tanh %x : tensor<2x8xf32>
  func.return %t : tensor<2x8xf32>
}

// -----

/// The last product carries a relu post-op: gelu_tanh alone would drop it.
// CHECK-LABEL: func.func @negative_gelu_tanh_mul_post_ops
// CHECK-NOT:     gelu_tanh
// CHECK:         dnn.binary mul %half, %xa {post_ops = [#dnn.eltwise<relu>]}
// CHECK-NOT:     gelu_tanh
// REMARK: remark: [dnn-recover-gelu] not recovered: the mul of the first product has post-ops
func.func @negative_gelu_tanh_mul_post_ops(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %cube = dnn.eltwise pow %x {alpha = 1.0 : f32, beta = 3.0 : f32} : tensor<2x8xf32>
  %k = dnn.constant dense<4.471500e-02> : tensor<1x1xf32>
  %kc = dnn.binary mul %k, %cube : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %inner = dnn.binary add %x, %kc : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = dnn.constant dense<0.797884583> : tensor<1x1xf32>
  %arg = dnn.binary mul %s, %inner : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = dnn.eltwise tanh %arg : tensor<2x8xf32>
  %one = dnn.constant dense<1.000000e+00> : tensor<1x1xf32>
  %a = dnn.binary add %one, %t : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %xa = dnn.binary mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %half = dnn.constant dense<5.000000e-01> : tensor<1x1xf32>
  %y = dnn.binary mul %half, %xa {post_ops = [#dnn.eltwise<relu>]} : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

/// The 0.5 factor broadcasts the result to 3x2x8: an eltwise of x cannot produce that shape.
// CHECK-LABEL: func.func @negative_gelu_tanh_result_broadcast
// CHECK-NOT:     gelu_tanh
// CHECK:         dnn.binary mul %half, %xa : (tensor<3x2x8xf32>, tensor<2x8xf32>) -> tensor<3x2x8xf32>
// CHECK-NOT:     gelu_tanh
// REMARK: remark: [dnn-recover-gelu] not recovered: the result type tensor<3x2x8xf32> is not x's
func.func @negative_gelu_tanh_result_broadcast(%x: tensor<2x8xf32>) -> tensor<3x2x8xf32> {
  %cube = dnn.eltwise pow %x {alpha = 1.0 : f32, beta = 3.0 : f32} : tensor<2x8xf32>
  %k = dnn.constant dense<4.471500e-02> : tensor<1x1xf32>
  %kc = dnn.binary mul %k, %cube : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %inner = dnn.binary add %x, %kc : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = dnn.constant dense<0.797884583> : tensor<1x1xf32>
  %arg = dnn.binary mul %s, %inner : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = dnn.eltwise tanh %arg : tensor<2x8xf32>
  %one = dnn.constant dense<1.000000e+00> : tensor<1x1xf32>
  %a = dnn.binary add %one, %t : (tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %xa = dnn.binary mul %x, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %half = dnn.constant dense<5.000000e-01> : tensor<3x2x8xf32>
  %y = dnn.binary mul %half, %xa : (tensor<3x2x8xf32>, tensor<2x8xf32>) -> tensor<3x2x8xf32>
  func.return %y : tensor<3x2x8xf32>
}
