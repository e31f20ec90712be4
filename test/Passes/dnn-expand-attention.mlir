// RUN: dnnc-opt %s -p dnn-expand-attention --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-expand-attention --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// One head per key/value head: matmul with kᵀ, the scale as an eltwise linear and the mask
/// as an add (both for dnn-fuse-post-ops), softmax over the keys, matmul with v.
// CHECK-LABEL: func.func @sdpa_mask_scale
// CHECK:         %[[KT:.*]] = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x2x6x8xf32>) -> tensor<2x2x8x6xf32>
// CHECK-NEXT:    %[[S:.*]] = dnn.matmul %q, %[[KT]] : (tensor<2x2x4x8xf32>, tensor<2x2x8x6xf32>) -> tensor<2x2x4x6xf32>
// CHECK-NEXT:    %[[T:.*]] = dnn.eltwise linear %[[S]] {alpha = 1.250000e-01 : f32} : tensor<2x2x4x6xf32>
// CHECK-NEXT:    %[[A:.*]] = dnn.binary add %[[T]], %mask : (tensor<2x2x4x6xf32>, tensor<2x1x1x6xf32>) -> tensor<2x2x4x6xf32>
// CHECK-NEXT:    %[[P:.*]] = dnn.softmax %[[A]] {axis = 3 : i64} : tensor<2x2x4x6xf32>
// CHECK-NEXT:    %[[Y:.*]] = dnn.matmul %[[P]], %v : (tensor<2x2x4x6xf32>, tensor<2x2x6x8xf32>) -> tensor<2x2x4x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @sdpa_mask_scale(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x8xf32>, %mask: tensor<2x1x1x6xf32>) -> tensor<2x2x4x8xf32> {
  %y = dnn.sdpa %q, %k, %v mask(%mask : tensor<2x1x1x6xf32>) {scale = 0.125 : f32} : (tensor<2x2x4x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>) -> tensor<2x2x4x8xf32>
  func.return %y : tensor<2x2x4x8xf32>
}

// -----

/// Grouped heads (4 query heads on 2 key/value heads), causal, a lower-rank mask: q is viewed
/// as [B, Hkv, G, L, D], k and v as [B, Hkv, 1, S, D] (no repeat in memory), the mask as
/// [1, 1, 1, L, S] and the causal constant is [1, 1, 1, L, S] with the queries the last L of
/// the S positions.
// CHECK-LABEL: func.func @sdpa_grouped_causal
// CHECK:         %[[Q:.*]] = dnn.reshape %q : (tensor<1x4x2x8xf32>) -> tensor<1x2x2x2x8xf32>
// CHECK-NEXT:    %[[K:.*]] = dnn.reshape %k : (tensor<1x2x3x8xf32>) -> tensor<1x2x1x3x8xf32>
// CHECK-NEXT:    %[[V:.*]] = dnn.reshape %v : (tensor<1x2x3x8xf32>) -> tensor<1x2x1x3x8xf32>
// CHECK-NEXT:    %[[KT:.*]] = dnn.transpose %[[K]] {permutation = array<i64: 0, 1, 2, 4, 3>} : (tensor<1x2x1x3x8xf32>) -> tensor<1x2x1x8x3xf32>
// CHECK-NEXT:    %[[S:.*]] = dnn.matmul %[[Q]], %[[KT]] : (tensor<1x2x2x2x8xf32>, tensor<1x2x1x8x3xf32>) -> tensor<1x2x2x2x3xf32>
// CHECK-NOT:     dnn.eltwise
// CHECK-NEXT:    %[[M:.*]] = dnn.reshape %mask : (tensor<2x3xf32>) -> tensor<1x1x1x2x3xf32>
// CHECK-NEXT:    %[[A:.*]] = dnn.binary add %[[S]], %[[M]]
// CHECK-NEXT:    %[[C:.*]] = dnn.constant dense<{{\[\[\[\[\[}}0.000000e+00, 0.000000e+00, -3.40282347e+38], [0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x2x3xf32>
// CHECK-NEXT:    %[[AC:.*]] = dnn.binary add %[[A]], %[[C]]
// CHECK-NEXT:    %[[P:.*]] = dnn.softmax %[[AC]] {axis = 4 : i64} : tensor<1x2x2x2x3xf32>
// CHECK-NEXT:    %[[O:.*]] = dnn.matmul %[[P]], %[[V]] : (tensor<1x2x2x2x3xf32>, tensor<1x2x1x3x8xf32>) -> tensor<1x2x2x2x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = dnn.reshape %[[O]] : (tensor<1x2x2x2x8xf32>) -> tensor<1x4x2x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @sdpa_grouped_causal(%q: tensor<1x4x2x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>, %mask: tensor<2x3xf32>) -> tensor<1x4x2x8xf32> {
  %y = dnn.sdpa %q, %k, %v mask(%mask : tensor<2x3xf32>) {scale = 1.0 : f32, causal = true} : (tensor<1x4x2x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x4x2x8xf32>
  func.return %y : tensor<1x4x2x8xf32>
}

// -----

/// A decoding step with grouped heads: one query, causal (a no-op for the last position) and a
/// padding mask [B, 1, 1, S]: the 2 query heads of each key/value head are stacked as rows,
/// so k and v are read as they are and the mask keeps its shape.
// CHECK-LABEL: func.func @sdpa_grouped_decoding_step
// CHECK:         %[[Q:.*]] = dnn.reshape %q : (tensor<2x4x1x8xf32>) -> tensor<2x2x2x8xf32>
// CHECK-NEXT:    %[[KT:.*]] = dnn.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x2x6x8xf32>) -> tensor<2x2x8x6xf32>
// CHECK-NEXT:    %[[S:.*]] = dnn.matmul %[[Q]], %[[KT]] : (tensor<2x2x2x8xf32>, tensor<2x2x8x6xf32>) -> tensor<2x2x2x6xf32>
// CHECK-NEXT:    %[[A:.*]] = dnn.binary add %[[S]], %mask : (tensor<2x2x2x6xf32>, tensor<2x1x1x6xf32>) -> tensor<2x2x2x6xf32>
// CHECK-NEXT:    %[[P:.*]] = dnn.softmax %[[A]] {axis = 3 : i64} : tensor<2x2x2x6xf32>
// CHECK-NEXT:    %[[O:.*]] = dnn.matmul %[[P]], %v : (tensor<2x2x2x6xf32>, tensor<2x2x6x8xf32>) -> tensor<2x2x2x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = dnn.reshape %[[O]] : (tensor<2x2x2x8xf32>) -> tensor<2x4x1x8xf32>
// CHECK-NEXT:    func.return %[[Y]]
func.func @sdpa_grouped_decoding_step(%q: tensor<2x4x1x8xf32>, %k: tensor<2x2x6x8xf32>, %v: tensor<2x2x6x8xf32>, %mask: tensor<2x1x1x6xf32>) -> tensor<2x4x1x8xf32> {
  %y = dnn.sdpa %q, %k, %v mask(%mask : tensor<2x1x1x6xf32>) {scale = 1.0 : f32, causal = true} : (tensor<2x4x1x8xf32>, tensor<2x2x6x8xf32>, tensor<2x2x6x8xf32>) -> tensor<2x4x1x8xf32>
  func.return %y : tensor<2x4x1x8xf32>
}

// -----

/// A per-head mask with grouped heads is viewed as [B, Hkv, G, L, S].
// CHECK-LABEL: func.func @sdpa_grouped_per_head_mask
// CHECK:         dnn.reshape %mask : (tensor<1x4x2x3xf32>) -> tensor<1x2x2x2x3xf32>
func.func @sdpa_grouped_per_head_mask(%q: tensor<1x4x2x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>, %mask: tensor<1x4x2x3xf32>) -> tensor<1x4x2x8xf32> {
  %y = dnn.sdpa %q, %k, %v mask(%mask : tensor<1x4x2x3xf32>) {scale = 1.0 : f32} : (tensor<1x4x2x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x4x2x8xf32>
  func.return %y : tensor<1x4x2x8xf32>
}

// -----

/// nan_to_zero keeps the guard torch's export had between the softmax and the second matmul.
// CHECK-LABEL: func.func @sdpa_nan_to_zero
// CHECK:         %[[P:.*]] = dnn.softmax
// CHECK-NEXT:    %[[N:.*]] = dnn.compare ne %[[P]], %[[P]]
// CHECK-NEXT:    %[[Z:.*]] = dnn.constant dense<0.000000e+00> : tensor<1x1x1x1xf32>
// CHECK-NEXT:    %[[G:.*]] = dnn.where %[[N]], %[[Z]], %[[P]]
// CHECK-NEXT:    dnn.matmul %[[G]], %v
func.func @sdpa_nan_to_zero(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %y = dnn.sdpa %q, %k, %v {scale = 1.0 : f32, nan_to_zero = true} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  func.return %y : tensor<1x2x4x8xf32>
}

// -----

/// Grouped heads with a dynamic length: the views would need it, so the op stays.
// CHECK-LABEL: func.func @negative_sdpa_grouped_dynamic
// CHECK:         dnn.sdpa
// CHECK-NOT:     dnn.matmul
// REMARK: remark: [dnn-expand-attention] kept on the reference kernel: q has a dynamic dimension and is viewed at another rank
func.func @negative_sdpa_grouped_dynamic(%q: tensor<1x4x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x4x?x8xf32> {
  %y = dnn.sdpa %q, %k, %v {scale = 1.0 : f32} : (tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x4x?x8xf32>
  func.return %y : tensor<1x4x?x8xf32>
}

// -----

/// Causal with a dynamic length: the constant mask needs L and S.
// CHECK-LABEL: func.func @negative_sdpa_causal_dynamic
// CHECK:         dnn.sdpa
// CHECK-NOT:     dnn.matmul
// REMARK: remark: [dnn-expand-attention] kept on the reference kernel: the causal mask needs the static lengths
func.func @negative_sdpa_causal_dynamic(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  %y = dnn.sdpa %q, %k, %v {scale = 1.0 : f32, causal = true} : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  func.return %y : tensor<1x2x?x8xf32>
}
