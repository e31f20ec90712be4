// RUN: dnnc-opt %s -p dnn-recover-swish --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-recover-swish --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: dnnc-opt %s -p dnn-propagate-special-values,dnn-recover-swish --split-input-file | filecheck %s --check-prefix=PROPAGATE

/// torch's SiLU as exported: Sigmoid, then Mul(x, sigmoid). Both go, one swish stays.
// CHECK-LABEL: func.func @silu
// CHECK-NEXT:    %[[Y:.*]] = dnn.eltwise swish %x {alpha = 1.000000e+00 : f32} : tensor<1x8x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]]
// REMARK: remark: [dnn-recover-swish] recovered swish
/// Under dnn-propagate-special-values the pair stays (swish gives NaN for +inf).
// PROPAGATE-LABEL: func.func @silu
// PROPAGATE:         dnn.eltwise sigmoid
// PROPAGATE-NEXT:    dnn.binary mul
// PROPAGATE-NEXT:    func.return
func.func @silu(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %s = dnn.eltwise sigmoid %x : tensor<1x8x4x4xf32>
  %y = dnn.binary mul %x, %s : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

/// The sigmoid on the left of the mul is the same function.
// CHECK-LABEL: func.func @silu_sigmoid_first
// CHECK-NEXT:    dnn.eltwise swish %x
// CHECK-NEXT:    func.return
func.func @silu_sigmoid_first(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %s = dnn.eltwise sigmoid %x : tensor<2x16xf32>
  %y = dnn.binary mul %s, %x : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}

// -----

/// The sigmoid is also returned: it is computed anyway, nothing is rewritten.
// CHECK-LABEL: func.func @negative_sigmoid_used_twice
// CHECK:         dnn.eltwise sigmoid
// CHECK:         dnn.binary mul
// CHECK-NOT:     swish
// REMARK: remark: [dnn-recover-swish] not recovered: the sigmoid has another use
func.func @negative_sigmoid_used_twice(%x: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>) {
  %s = dnn.eltwise sigmoid %x : tensor<2x16xf32>
  %y = dnn.binary mul %x, %s : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  func.return %y, %s : tensor<2x16xf32>, tensor<2x16xf32>
}

// -----

/// A gate: y * sigmoid(x) with y another tensor (GLU) is not swish.
// CHECK-LABEL: func.func @negative_gate_of_another_tensor
// CHECK:         dnn.eltwise sigmoid
// CHECK:         dnn.binary mul
// CHECK-NOT:     swish
func.func @negative_gate_of_another_tensor(%x: tensor<2x16xf32>, %g: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %s = dnn.eltwise sigmoid %x : tensor<2x16xf32>
  %y = dnn.binary mul %g, %s : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}

// -----

/// A mul with a fused post-op computes more than x * sigmoid(x).
// CHECK-LABEL: func.func @negative_mul_with_post_ops
// CHECK:         dnn.eltwise sigmoid
// CHECK:         dnn.binary mul
// CHECK-NOT:     swish
// REMARK: remark: [dnn-recover-swish] not recovered: the mul of the sigmoid has post-ops
func.func @negative_mul_with_post_ops(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %s = dnn.eltwise sigmoid %x : tensor<2x16xf32>
  %y = dnn.binary mul %x, %s {post_ops = [#dnn.eltwise<relu>]} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  func.return %y : tensor<2x16xf32>
}

// -----

/// x broadcast against a larger sigmoid operand's shape: the result is not x's shape.
// CHECK-LABEL: func.func @negative_broadcast
// CHECK:         dnn.binary mul
// CHECK-NOT:     swish
func.func @negative_broadcast(%x: tensor<1x16xf32>, %z: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %s = dnn.eltwise sigmoid %x : tensor<1x16xf32>
  %y = dnn.binary mul %z, %s : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  func.return %y : tensor<4x16xf32>
}
