// RUN: dnnc-opt %s -p 'dnn-dense-as-inner-product{when=always}' --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p 'dnn-dense-as-inner-product{when=never}' --split-input-file | filecheck %s --check-prefix=NEVER
// RUN: not dnnc-opt %s -p 'dnn-dense-as-inner-product{when=sometimes}' 2>&1 | filecheck %s --check-prefix=OPTION

/// A dense layer over constant weights becomes an inner product over the transposed weights,
/// its post-ops and their arguments kept (whether oneDNN's matmul falls back here depends on
/// the CPU: when=always shows the rewrite on every one; the default asks oneDNN).
// CHECK-LABEL: func.func @dense_layer
// CHECK:         %[[T:.*]] = dnn.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = dnn.inner_product %x, %[[T]] post_args(%b : tensor<1x2xf32>) {post_ops = [#dnn.binary<add>, #dnn.eltwise<gelu_erf>]} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
// CHECK-NOT:     dnn.matmul
// CHECK:         func.return %[[Y]]
// NEVER-LABEL: func.func @dense_layer
// NEVER:         dnn.matmul
// OPTION: error: invalid options for pass 'dnn-dense-as-inner-product': when=sometimes is not one of fallback, always, never
func.func @dense_layer(%x: tensor<4x3xf32>, %b: tensor<1x2xf32>) -> tensor<4x2xf32> {
  %w = dnn.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = dnn.matmul %x, %w post_args(%b : tensor<1x2xf32>) {post_ops = [#dnn.binary<add>, #dnn.eltwise<gelu_erf>]} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// -----

/// Not a dense layer over constant weights: run-time weights, a batch of products (rank 3),
/// a bias operand (broadcast numpy-style, which an inner product's per-channel bias is not
/// always). Each matmul stays.
// CHECK-LABEL: func.func @negative_not_dense_layers
// CHECK-COUNT-3: dnn.matmul
// CHECK-NOT:     dnn.inner_product
func.func @negative_not_dense_layers(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>, %x3: tensor<2x4x3xf32>, %c: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<2x4x2xf32>, tensor<4x2xf32>) {
  %k = dnn.constant dense<1.0> : tensor<3x2xf32>
  %k3 = dnn.constant dense<1.0> : tensor<2x3x2xf32>
  %a = dnn.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %b = dnn.matmul %x3, %k3 : (tensor<2x4x3xf32>, tensor<2x3x2xf32>) -> tensor<2x4x2xf32>
  %d = dnn.matmul %x, %k, %c : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  func.return %a, %b, %d : tensor<4x2xf32>, tensor<2x4x2xf32>, tensor<4x2xf32>
}

// -----

/// Rows of dynamic count: decided per input shape, on the static graph of each.
// CHECK-LABEL: func.func @negative_dynamic_rows
// CHECK:         dnn.matmul
// CHECK-NOT:     dnn.inner_product
func.func @negative_dynamic_rows(%x: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %k = dnn.constant dense<1.0> : tensor<3x2xf32>
  %a = dnn.matmul %x, %k : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<?x2xf32>
  func.return %a : tensor<?x2xf32>
}
