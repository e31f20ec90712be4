// RUN: dnnc-opt %s --split-input-file -p dnn-inplace | filecheck %s
// RUN: dnnc-opt %s --split-input-file -p dnn-inplace --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// ResNet residual: conv + add(%r) + relu ==> sum post-op accumulating in %r's buffer, then relu
/// (d = relu(conv + r) either way).
// CHECK-LABEL: func.func @conv_residual_becomes_sum
// CHECK:         %y = dnn.conv2d %r, %wei post_args(%r2 : tensor<1x8x4x4xf32>) {dnn.inplace = array<i64: 2>, post_ops = [#dnn.sum<1.0>, #dnn.eltwise<relu>]}
// REMARK: remark: [dnn-inplace] residual add of %r2 becomes #dnn.sum<1.0>, accumulating in place
func.func @conv_residual_becomes_sum(%x: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %r = dnn.eltwise relu %x : tensor<1x8x4x4xf32>
  %r2 = dnn.eltwise tanh %x : tensor<1x8x4x4xf32>
  %y = dnn.conv2d %r, %wei post_args(%r2 : tensor<1x8x4x4xf32>) {post_ops = [#dnn.binary<add>, #dnn.eltwise<relu>]} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

/// Eltwise before the add: d = eltwise(conv) + r with either post-op, so the sum is taken.
// CHECK-LABEL: func.func @matmul_eltwise_then_residual
// CHECK:         dnn.inplace = array<i64: 2>, post_ops = [#dnn.eltwise<gelu_erf>, #dnn.sum<1.0>]
func.func @matmul_eltwise_then_residual(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %r = dnn.eltwise tanh %x : tensor<4x8xf32>
  %y = dnn.matmul %x, %w post_args(%r : tensor<4x8xf32>) {post_ops = [#dnn.eltwise<gelu_erf>, #dnn.binary<add>]} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

/// The residual is the block's input, still read after the conv: kept as a binary add.
// CHECK-LABEL: func.func @negative_residual_read_later
// CHECK:         %y = dnn.conv2d %x, %wei post_args(%r : tensor<1x8x4x4xf32>) {post_ops = [#dnn.binary<add>]}
// REMARK: remark: [dnn-inplace] residual add of %r kept as a binary post-op: operand 2 (%r): %r is also read by dnn.eltwise
func.func @negative_residual_read_later(%x: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %r = dnn.eltwise relu %x : tensor<1x8x4x4xf32>
  %y = dnn.conv2d %x, %wei post_args(%r : tensor<1x8x4x4xf32>) {post_ops = [#dnn.binary<add>]} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %z = dnn.eltwise exp %r : tensor<1x8x4x4xf32>
  func.return %y, %z : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

/// The residual is also the conv's source: accumulating into it would overwrite what the conv reads.
// CHECK-LABEL: func.func @negative_residual_is_source
// CHECK:         post_ops = [#dnn.binary<add>]}
// REMARK: remark: [dnn-inplace] residual add of %r kept as a binary post-op: operand 2 (%r) shares its buffer with operand 0, which this op reads
func.func @negative_residual_is_source(%x: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %r = dnn.eltwise relu %x : tensor<1x8x4x4xf32>
  %y = dnn.conv2d %r, %wei post_args(%r : tensor<1x8x4x4xf32>) {post_ops = [#dnn.binary<add>]} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

/// A caller's input as residual is read-only; a per-channel add is no sum (another type); a
/// binary post-op before the add keeps it too.
// CHECK-LABEL: func.func @negative_residual_refusals
// CHECK:         %a = dnn.conv2d {{.*}}post_ops = [#dnn.binary<add>]}
// CHECK:         %b = dnn.conv2d {{.*}}post_ops = [#dnn.binary<add>]}
// CHECK:         %c = dnn.conv2d {{.*}}post_ops = [#dnn.binary<mul>, #dnn.binary<add>]}
// CHECK-NOT:     dnn.inplace
// REMARK: remark: [dnn-inplace] residual add of %x kept as a binary post-op: operand 2 (%x) lives in a function argument, which is read-only
func.func @negative_residual_refusals(%x: tensor<1x8x4x4xf32>, %wei: tensor<8x8x1x1xf32>, %s: tensor<1x8x1x1xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %a = dnn.conv2d %x, %wei post_args(%x : tensor<1x8x4x4xf32>) {post_ops = [#dnn.binary<add>]} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %b = dnn.conv2d %x, %wei post_args(%s : tensor<1x8x1x1xf32>) {post_ops = [#dnn.binary<add>]} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %r = dnn.eltwise relu %x : tensor<1x8x4x4xf32>
  %c = dnn.conv2d %x, %wei post_args(%s, %r : tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>) {post_ops = [#dnn.binary<mul>, #dnn.binary<add>]} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  func.return %a, %b, %c : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}
