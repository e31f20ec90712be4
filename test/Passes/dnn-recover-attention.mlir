// RUN: dnnc-opt %s -p dnn-recover-attention --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-recover-attention --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// F.scaled_dot_product_attention(is_causal=True) as torch's exporter writes it: sqrt(scale)
/// on q and on kᵀ, a constant causal mask added (folded at import). The mask is recognised
/// as causal and dropped; the two factors multiply into the scale; the transpose goes.
// CHECK-LABEL: func.func @sdpa_torch_causal
// CHECK-NOT:     dnn.transpose
// CHECK:         %[[Y:.*]] = dnn.sdpa %q, %k, %v {scale = 0.124999993 : f32, causal = true} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NOT:     dnn.softmax
// CHECK-NEXT:    func.return %[[Y]]
// REMARK: remark: [dnn-recover-attention] recovered sdpa (scale 0.125, causal)
func.func @sdpa_torch_causal(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %kt = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %c0 = dnn.constant dense<0.353553385> : tensor<1x1x1x1xf32>
  %qs = dnn.binary mul %q, %c0 : (tensor<1x2x4x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x8xf32>
  %c1 = dnn.constant dense<0.353553385> : tensor<1x1x1x1xf32>
  %ks = dnn.binary mul %kt, %c1 : (tensor<1x2x8x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %qs, %ks : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %m = dnn.constant dense<[[[[0.0, -3.40282347e+38, -3.40282347e+38, -3.40282347e+38], [0.0, 0.0, -3.40282347e+38, -3.40282347e+38], [0.0, 0.0, 0.0, -3.40282347e+38], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf32>
  %a = dnn.binary add %s, %m : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %a {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// The explicit form (GPT-2 eager): a division of the scores, then a padding mask from the
/// caller, added from the left. The mask stays an operand.
// CHECK-LABEL: func.func @sdpa_explicit_div_padding_mask
// CHECK:         %[[Y:.*]] = dnn.sdpa %q, %k, %v mask(%mask : tensor<1x1x1x4xf32>) {scale = 2.500000e-01 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @sdpa_explicit_div_padding_mask(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %mask: tensor<1x1x1x4xf32>) -> tensor<1x2x4x8xf32> {
  %kt = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %c = dnn.constant dense<4.0> : tensor<f32>
  %t = dnn.binary div %s, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %a = dnn.binary add %mask, %t : (tensor<1x1x1x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %a {axis = -1 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// LLaMA: k and v through repeat_kv (unsqueeze, expand, reshape) from 1 to 2 heads; dnn.sdpa
/// reads the single key/value head directly.
// CHECK-LABEL: func.func @sdpa_grouped_repeat_kv
// CHECK-NOT:     dnn.expand
// CHECK:         %[[Y:.*]] = dnn.sdpa %q, %k, %v mask(%mask : tensor<1x1x4x4xf32>) {scale = 0.353553385 : f32} : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @sdpa_grouped_repeat_kv(%q: tensor<1x2x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %mask: tensor<1x1x4x4xf32>) -> tensor<1x2x4x8xf32> {
  %k1 = dnn.reshape %k : (tensor<1x1x4x8xf32>) -> tensor<1x1x1x4x8xf32>
  %k2 = dnn.expand %k1 {shape = array<i64: 1, 1, 2, 4, 8>} : (tensor<1x1x1x4x8xf32>) -> tensor<1x1x2x4x8xf32>
  %k3 = dnn.reshape %k2 : (tensor<1x1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %v1 = dnn.reshape %v : (tensor<1x1x4x8xf32>) -> tensor<1x1x1x4x8xf32>
  %v2 = dnn.expand %v1 {shape = array<i64: 1, 1, 2, 4, 8>} : (tensor<1x1x1x4x8xf32>) -> tensor<1x1x2x4x8xf32>
  %v3 = dnn.reshape %v2 : (tensor<1x1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %kt = dnn.transpose %k3 {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %c = dnn.constant dense<0.353553385> : tensor<1x1x1x1xf32>
  %t = dnn.binary mul %c, %s : (tensor<1x1x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = dnn.binary add %t, %mask : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %a {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v3 : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// The traced import's repeat_kv: Expand to sizes that follow the inputs is dnn.where %c,
/// %x, %x (%c an all-true input of that shape); both branches are %x, so it broadcasts %x
/// whatever %c holds, and dnn.sdpa reads the single key/value head directly.
// CHECK-LABEL: func.func @sdpa_traced_repeat_kv
// CHECK-NOT:     dnn.where
// CHECK:         %[[Y:.*]] = dnn.sdpa %q, %k, %v mask(%mask : tensor<1x1x1x4xf32>) {scale = 0.353553385 : f32} : (tensor<1x2x1x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x1x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @sdpa_traced_repeat_kv(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>, %mask: tensor<1x1x1x4xf32>, %all: tensor<1x1x2x4x8xi1>) -> tensor<1x2x1x8xf32> {
  %k1 = dnn.reshape %k : (tensor<1x1x4x8xf32>) -> tensor<1x1x1x4x8xf32>
  %k2 = dnn.where %all, %k1, %k1 : (tensor<1x1x2x4x8xi1>, tensor<1x1x1x4x8xf32>, tensor<1x1x1x4x8xf32>) -> tensor<1x1x2x4x8xf32>
  %k3 = dnn.reshape %k2 : (tensor<1x1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %v1 = dnn.reshape %v : (tensor<1x1x4x8xf32>) -> tensor<1x1x1x4x8xf32>
  %v2 = dnn.where %all, %v1, %v1 : (tensor<1x1x2x4x8xi1>, tensor<1x1x1x4x8xf32>, tensor<1x1x1x4x8xf32>) -> tensor<1x1x2x4x8xf32>
  %v3 = dnn.reshape %v2 : (tensor<1x1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %kt = dnn.transpose %k3 {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x1x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x1x4xf32>
  %c = dnn.constant dense<0.353553385> : tensor<1x1x1x1xf32>
  %t = dnn.binary mul %s, %c : (tensor<1x2x1x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x1x4xf32>
  %a = dnn.binary add %t, %mask : (tensor<1x2x1x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x2x1x4xf32>
  %p = dnn.softmax %a {axis = 3 : i64} : tensor<1x2x1x4xf32>
  %y = dnn.matmul %p, %v3 : (tensor<1x2x1x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x1x8xf32>
  func.return %y : tensor<1x2x1x8xf32>
}

// -----

/// A dnn.where between two different values selects, it does not broadcast one: not a
/// repeat. Nor is a broadcast of another axis than the inserted head-group one (here the
/// keys' length 1 -> 4 in v's chain): both chains stay, dnn.sdpa reads their results.
// CHECK-LABEL: func.func @negative_repeat_kv_not_a_head_repeat
// CHECK:         %[[K2:.*]] = dnn.where %keep, %k1, %k0
// CHECK:         %[[K3:.*]] = dnn.reshape %[[K2]]
// CHECK:         %[[V2:.*]] = dnn.where %all, %v1, %v1
// CHECK:         %[[V3:.*]] = dnn.reshape %[[V2]]
// CHECK:         dnn.sdpa %q, %[[K3]], %[[V3]] {scale = 1.000000e+00 : f32}
func.func @negative_repeat_kv_not_a_head_repeat(%q: tensor<1x2x4x8xf32>, %k: tensor<1x1x4x8xf32>, %k0: tensor<1x1x2x4x8xf32>, %v: tensor<1x2x1x8xf32>, %keep: tensor<1x1x2x4x8xi1>, %all: tensor<1x2x1x4x8xi1>) -> tensor<1x2x4x8xf32> {
  %k1 = dnn.reshape %k : (tensor<1x1x4x8xf32>) -> tensor<1x1x1x4x8xf32>
  %k2 = dnn.where %keep, %k1, %k0 : (tensor<1x1x2x4x8xi1>, tensor<1x1x1x4x8xf32>, tensor<1x1x2x4x8xf32>) -> tensor<1x1x2x4x8xf32>
  %k3 = dnn.reshape %k2 : (tensor<1x1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %v1 = dnn.reshape %v : (tensor<1x2x1x8xf32>) -> tensor<1x2x1x1x8xf32>
  %v2 = dnn.where %all, %v1, %v1 : (tensor<1x2x1x4x8xi1>, tensor<1x2x1x1x8xf32>, tensor<1x2x1x1x8xf32>) -> tensor<1x2x1x4x8xf32>
  %v3 = dnn.reshape %v2 : (tensor<1x2x1x4x8xf32>) -> tensor<1x2x4x8xf32>
  %kt = dnn.transpose %k3 {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %s {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v3 : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// torch's exported SDPA with a boolean mask guards the softmax with Where(IsNaN(p), 0, p):
/// the guard goes into the op as nan_to_zero.
// CHECK-LABEL: func.func @sdpa_nan_guard
// CHECK-NOT:     dnn.compare
// CHECK:         %[[Y:.*]] = dnn.sdpa %q, %k, %v mask(%mask : tensor<1x1x4x4xf32>) {scale = 1.000000e+00 : f32, nan_to_zero = true}
// CHECK-NEXT:    func.return %[[Y]]
func.func @sdpa_nan_guard(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %mask: tensor<1x1x4x4xf32>) -> tensor<1x2x4x8xf32> {
  %kt = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %a = dnn.binary add %s, %mask : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %a {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %n = dnn.compare ne %p, %p : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xi1>
  %z = dnn.constant dense<0.0> : tensor<1x1x1x1xf32>
  %g = dnn.where %n, %z, %p : (tensor<1x2x4x4xi1>, tensor<1x1x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = dnn.matmul %g, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// The matmul reads kᵀ as given (no transpose to remove): k becomes its transpose.
// CHECK-LABEL: func.func @sdpa_without_transpose
// CHECK:         %[[K:.*]] = dnn.transpose %kt {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x4xf32>) -> tensor<1x2x4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = dnn.sdpa %q, %[[K]], %v {scale = 1.000000e+00 : f32}
func.func @sdpa_without_transpose(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %s {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// Masking by dnn.where with a fill of the lowest f32 (as transformers writes it) is additive:
/// the mask becomes where(c, 0, fill).
// CHECK-LABEL: func.func @sdpa_where_mask
// CHECK:         %[[Z:.*]] = dnn.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = dnn.where %keep, %[[Z]], %fill : (tensor<1x1x4x4xi1>, tensor<f32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = dnn.sdpa %q, %k, %v mask(%[[M]] : tensor<1x1x4x4xf32>)
func.func @sdpa_where_mask(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %keep: tensor<1x1x4x4xi1>) -> tensor<1x2x4x8xf32> {
  %kt = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %fill = dnn.constant dense<-3.40282347e+38> : tensor<1x1x1x1xf32>
  %a = dnn.where %keep, %s, %fill : (tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %a {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// A constant mask that is not causal (the second key is masked for every query) stays an
/// additive mask operand.
// CHECK-LABEL: func.func @sdpa_constant_mask_not_causal
// CHECK:         %[[M:.*]] = dnn.constant
// CHECK:         dnn.sdpa %q, %k, %v mask(%[[M]] : tensor<1x1x4x4xf32>) {scale = 1.000000e+00 : f32}
// CHECK-NOT:     causal
func.func @sdpa_constant_mask_not_causal(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %kt = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %m = dnn.constant dense<[[[[0.0, -3.40282347e+38, 0.0, 0.0], [0.0, -3.40282347e+38, 0.0, 0.0], [0.0, -3.40282347e+38, 0.0, 0.0], [0.0, -3.40282347e+38, 0.0, 0.0]]]]> : tensor<1x1x4x4xf32>
  %a = dnn.binary add %s, %m : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %a {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// q is a product with a tensor (rotary embeddings multiply q by cos): that product is q, and
/// only the scalar factor after it goes into the scale.
// CHECK-LABEL: func.func @sdpa_q_times_tensor
// CHECK:         %[[R:.*]] = dnn.binary mul %x, %cos
// CHECK-NEXT:    %[[Y:.*]] = dnn.sdpa %[[R]], %k, %v {scale = 5.000000e-01 : f32}
func.func @sdpa_q_times_tensor(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %r = dnn.binary mul %x, %cos : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32>
  %c = dnn.constant dense<0.5> : tensor<1x1x1x1xf32>
  %q = dnn.binary mul %r, %c : (tensor<1x2x4x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x8xf32>
  %kt = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %s {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// The softmax normalizes over the queries (axis 2), not the keys: not attention.
// CHECK-LABEL: func.func @negative_sdpa_softmax_other_axis
// CHECK-NOT:     dnn.sdpa
// REMARK: remark: [dnn-recover-attention] not recovered: the softmax is not over the last axis
func.func @negative_sdpa_softmax_other_axis(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %s {axis = 2 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// dnn.where fills the masked scores with 0, not -inf: the masked keys keep a weight, so the
/// mask cannot be proven additive.
// CHECK-LABEL: func.func @negative_sdpa_where_mask_not_additive
// CHECK-NOT:     dnn.sdpa
// REMARK: remark: [dnn-recover-attention] not recovered: the dnn.where mask does not fill with a constant <= -1e30 (not additive)
func.func @negative_sdpa_where_mask_not_additive(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>, %keep: tensor<1x1x4x4xi1>) -> tensor<1x2x4x8xf32> {
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %fill = dnn.constant dense<0.0> : tensor<1x1x1x1xf32>
  %a = dnn.where %keep, %s, %fill : (tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %a {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// A per-head scale is not one scalar: dnn.sdpa has a single scale.
// CHECK-LABEL: func.func @negative_sdpa_scale_per_head
// CHECK-NOT:     dnn.sdpa
// REMARK: remark: [dnn-recover-attention] not recovered: the scale of the scores is not a scalar dnn.constant
func.func @negative_sdpa_scale_per_head(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %c = dnn.constant dense<[[[[0.5]], [[0.25]]]]> : tensor<1x2x1x1xf32>
  %t = dnn.binary mul %s, %c : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %t {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// The scaled q is also returned: erasing its mul would lose it.
// CHECK-LABEL: func.func @negative_sdpa_scaled_q_used_elsewhere
// CHECK-NOT:     dnn.sdpa
// REMARK: remark: [dnn-recover-attention] not recovered: the scaled q has another use, which would be lost
func.func @negative_sdpa_scaled_q_used_elsewhere(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %c = dnn.constant dense<0.5> : tensor<1x1x1x1xf32>
  %qs = dnn.binary mul %q, %c : (tensor<1x2x4x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x8xf32>
  %s = dnn.matmul %qs, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %s {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y, %qs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

/// kᵀ is also returned: erasing the transpose would lose it.
// CHECK-LABEL: func.func @negative_sdpa_transposed_k_used_elsewhere
// CHECK-NOT:     dnn.sdpa
// REMARK: remark: [dnn-recover-attention] not recovered: kᵀ has another use, which would be lost
func.func @negative_sdpa_transposed_k_used_elsewhere(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) {
  %kt = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %s {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y, %kt : tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>
}

// -----

/// The probabilities are also returned (attention weights as an output): they would be lost.
// CHECK-LABEL: func.func @negative_sdpa_probabilities_returned
// CHECK-NOT:     dnn.sdpa
// REMARK: remark: [dnn-recover-attention] not recovered: the softmax has another use, which would be lost
func.func @negative_sdpa_probabilities_returned(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>) {
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %s {axis = 3 : i64} : tensor<1x2x4x4xf32>
  %y = dnn.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y, %p : tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>
}

// -----

/// The probabilities are the function's result (a softmax over a rank-4 product, as
/// torch's functional softmax test exports it): no matmul reads them, so no attention.
// CHECK-LABEL: func.func @negative_sdpa_softmax_returned
// CHECK-NOT:     dnn.sdpa
// REMARK: remark: [dnn-recover-attention] not recovered: the softmax is not read by a dnn.matmul
func.func @negative_sdpa_softmax_returned(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32> {
  %s = dnn.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = dnn.softmax %s {axis = 3 : i64} : tensor<1x2x4x4xf32>
  func.return %p : tensor<1x2x4x4xf32>
}
