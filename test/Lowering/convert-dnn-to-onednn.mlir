// RUN: dnnc-opt %s --split-input-file -p dnn-guard-special-values,dnn-plan-memory,convert-dnn-to-onednn,onednn-verify-buffers | filecheck %s

/// The full lowered form: memories for inputs then results, constants wrapped, arena views,
/// one primitive per op, parameters named as the dnn properties, no returned values.
// CHECK-LABEL: func.func @conv_bias_relu(%src: !onednn.memory<1x3x10x10xf32>, %result0: !onednn.memory<1x4x8x8xf32>)
// CHECK-SAME:    attributes {onednn.arena_bytes = 1024 : i64, onednn.inputs = ["src"], onednn.outputs = ["result0"], onednn.guards = [{"+inf" = "nan reaches dnn.conv2d at {{.*}}its clip post-op: clip(NaN) = its lower bound", "-inf" = {{.*}}, nan = {{.*}}}]}
// CHECK-NEXT:    %wei = dnn.weight "w.npz", "conv.wei" : tensor<4x3x3x3xf32>
// CHECK-NEXT:    %[[W:.*]] = onednn.constant %wei : tensor<4x3x3x3xf32> -> !onednn.memory<4x3x3x3xf32>
// CHECK-NEXT:    %bias = dnn.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = onednn.constant %bias : tensor<4xf32> -> !onednn.memory<4xf32>
// CHECK-NEXT:    %[[C:.*]] = onednn.arena_view 0 : !onednn.memory<1x4x8x8xf32>
// CHECK-NEXT:    onednn.primitive convolution ins(src = %src : !onednn.memory<1x3x10x10xf32>, weights = %[[W]] : !onednn.memory<4x3x3x3xf32>, bias = %[[B]] : !onednn.memory<4xf32>) outs(dst = %[[C]] : !onednn.memory<1x4x8x8xf32>)
// CHECK-SAME:      {strides = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, dilations = array<i64: 2, 2>, groups = 1 : i64, post_ops = [#dnn.eltwise<clip, 0.0, 6.0>]}
// CHECK-NEXT:    onednn.primitive eltwise ins(src = %[[C]] : !onednn.memory<1x4x8x8xf32>) outs(dst = %result0 : !onednn.memory<1x4x8x8xf32>) {alg = "leaky_relu", alpha = 1.000000e-01 : f32, beta = 0.000000e+00 : f32}
// CHECK-NEXT:    func.return{{$}}
func.func @conv_bias_relu(%src: tensor<1x3x10x10xf32>) -> tensor<1x4x8x8xf32> {
  %wei = dnn.weight "w.npz", "conv.wei" : tensor<4x3x3x3xf32>
  %bias = dnn.constant dense<0.5> : tensor<4xf32>
  %c = dnn.conv2d %src, %wei, %bias {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, dilations = array<i64: 2, 2>, post_ops = [#dnn.eltwise<clip, 0.0, 6.0>]} : (tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %r = dnn.eltwise leaky_relu %c {alpha = 0.1 : f32} : tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// -----

/// matmul: src = lhs, weights = rhs; a value written straight into the result array.
// CHECK-LABEL: func.func @matmul_bias
// CHECK-SAME:    onednn.arena_bytes = 0 : i64
// CHECK:         onednn.primitive matmul ins(src = %lhs : {{.*}}, weights = %rhs : {{.*}}, bias = %bias : {{.*}}) outs(dst = %result0 : !onednn.memory<2x3x5xf32>) {post_ops = []}
func.func @matmul_bias(%lhs: tensor<2x3x4xf32>, %rhs: tensor<2x4x5xf32>, %bias: tensor<1x1x5xf32>) -> tensor<2x3x5xf32> {
  %y = dnn.matmul %lhs, %rhs, %bias : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<1x1x5xf32>) -> tensor<2x3x5xf32>
  func.return %y : tensor<2x3x5xf32>
}

// -----

/// Post-op arguments follow the main operands as post_arg_<i>.
// CHECK-LABEL: func.func @inner_product_binary_post_op
// CHECK:         onednn.primitive inner_product ins(src = %src : {{.*}}, weights = %wei : {{.*}}, post_arg_0 = %p : !onednn.memory<2x4xf32>) outs(dst = %result0 : {{.*}}) {post_ops = [#dnn.binary<mul>]}
func.func @inner_product_binary_post_op(%src: tensor<2x8xf32>, %wei: tensor<4x8xf32>, %p: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = dnn.inner_product %src, %wei post_args(%p : tensor<2x4xf32>) {post_ops = [#dnn.binary<mul>]} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @pool_max
// CHECK:         onednn.primitive pooling ins(src = %src : {{.*}}) outs(dst = %result0 : {{.*}}) {kind = "max", kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, dilations = array<i64: 1, 1>, post_ops = []}
func.func @pool_max(%src: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %y = dnn.pool max %src {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @batch_norm
// CHECK:         onednn.primitive batch_normalization ins(src = %src : {{.*}}, mean = %mean : {{.*}}, variance = %variance : {{.*}}, scale = %scale : {{.*}}, shift = %shift : {{.*}}) outs(dst = %result0 : {{.*}}) {epsilon = 1.000000e-03 : f32}
func.func @batch_norm(%src: tensor<1x4x2x2xf32>, %scale: tensor<4xf32>, %shift: tensor<4xf32>, %mean: tensor<4xf32>, %variance: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %y = dnn.batch_norm %src, %scale, %shift, %mean, %variance {epsilon = 1.0e-3 : f32} : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  func.return %y : tensor<1x4x2x2xf32>
}

// -----

/// An absent optional operand (shift) has no role.
// CHECK-LABEL: func.func @layer_norm_scale_only
// CHECK:         onednn.primitive layer_normalization ins(src = %src : {{.*}}, scale = %scale : !onednn.memory<8xf32>) outs(dst = %result0 : {{.*}}) {epsilon = 1.000000e-05 : f32}
func.func @layer_norm_scale_only(%src: tensor<2x8xf32>, %scale: tensor<8xf32>) -> tensor<2x8xf32> {
  %y = dnn.layer_norm %src scale(%scale : tensor<8xf32>) : tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func.func @lrn
// CHECK:         onednn.primitive lrn ins(src = %src : {{.*}}) outs(dst = %result0 : {{.*}}) {kind = "across_channels", size = 5 : i64, alpha = 1.000000e-04 : f32, beta = 7.500000e-01 : f32, k = 1.000000e+00 : f32}
func.func @lrn(%src: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %y = dnn.lrn across_channels %src {size = 5 : i64} : tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

/// One softmax kind, two algorithms; axis -1 normalized to 1.
// CHECK-LABEL: func.func @softmax_and_log_softmax
// CHECK:         onednn.primitive softmax ins(src = %src : {{.*}}) outs(dst = %result0 : {{.*}}) {axis = 1 : i64, alg = "accurate"}
// CHECK:         onednn.primitive softmax ins(src = %src : {{.*}}) outs(dst = %result1 : {{.*}}) {axis = 0 : i64, alg = "log"}
func.func @softmax_and_log_softmax(%src: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %s = dnn.softmax %src {axis = -1 : i64} : tensor<2x8xf32>
  %l = dnn.log_softmax %src {axis = 0 : i64} : tensor<2x8xf32>
  func.return %s, %l : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

/// keep_dims: the destination is the result itself.
// CHECK-LABEL: func.func @reduce_keep_dims
// CHECK-NOT:     onednn.reshape
// CHECK:         onednn.primitive reduction ins(src = %src : {{.*}}) outs(dst = %result0 : !onednn.memory<2x1x4xf32>) {kind = "sum"}
func.func @reduce_keep_dims(%src: tensor<2x8x4xf32>) -> tensor<2x1x4xf32> {
  %y = dnn.reduce sum %src {axes = array<i64: 1>} : (tensor<2x8x4xf32>) -> tensor<2x1x4xf32>
  func.return %y : tensor<2x1x4xf32>
}

// -----

/// Dropped dims: the primitive writes a keep-dims view of the result.
// CHECK-LABEL: func.func @reduce_drop_dims
// CHECK:         %[[KEPT:.*]] = onednn.reshape %result0 : !onednn.memory<2xf32> -> !onednn.memory<2x1x1xf32>
// CHECK-NEXT:    onednn.primitive reduction ins(src = %src : {{.*}}) outs(dst = %[[KEPT]] : !onednn.memory<2x1x1xf32>) {kind = "max"}
func.func @reduce_drop_dims(%src: tensor<2x8x4xf32>) -> tensor<2xf32> {
  %y = dnn.reduce max %src {axes = array<i64: -1, 1>, keep_dims = false} : (tensor<2x8x4xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// -----

/// Every dim dropped: the result is a rank-0 memory (one element), written through a view.
// CHECK-LABEL: func.func @reduce_to_a_scalar(%src: !onednn.memory<2x8xf32>, %result0: !onednn.memory<f32>)
// CHECK:         %[[KEPT:.*]] = onednn.reshape %result0 : !onednn.memory<f32> -> !onednn.memory<1x1xf32>
// CHECK-NEXT:    onednn.primitive reduction ins(src = %src : {{.*}}) outs(dst = %[[KEPT]] : !onednn.memory<1x1xf32>) {kind = "mean"}
func.func @reduce_to_a_scalar(%src: tensor<2x8xf32>) -> tensor<f32> {
  %y = dnn.reduce mean %src {axes = array<i64: 0, 1>, keep_dims = false} : (tensor<2x8xf32>) -> tensor<f32>
  func.return %y : tensor<f32>
}

// -----

/// oneDNN broadcasts the second source: kept in order.
// CHECK-LABEL: func.func @binary_broadcast_rhs
// CHECK:         onednn.primitive binary ins(src_0 = %lhs : !onednn.memory<2x8xf32>, src_1 = %rhs : !onednn.memory<1x8xf32>) outs(dst = %result0 : {{.*}}) {alg = "sub", post_ops = []}
func.func @binary_broadcast_rhs(%lhs: tensor<2x8xf32>, %rhs: tensor<1x8xf32>) -> tensor<2x8xf32> {
  %y = dnn.binary sub %lhs, %rhs : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

/// A broadcast LHS of a commutative algorithm: operands swapped.
// CHECK-LABEL: func.func @binary_broadcast_lhs_commutative
// CHECK:         onednn.primitive binary ins(src_0 = %rhs : !onednn.memory<2x8xf32>, src_1 = %lhs : !onednn.memory<1x8xf32>) outs(dst = %result0 : {{.*}}) {alg = "max", post_ops = []}
func.func @binary_broadcast_lhs_commutative(%lhs: tensor<1x8xf32>, %rhs: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = dnn.binary max %lhs, %rhs : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

/// A broadcast LHS of div cannot be swapped: reference kernel, roles named like the dnn operands.
// CHECK-LABEL: func.func @binary_broadcast_lhs_reference
// CHECK-NOT:     onednn.primitive
// CHECK:         onednn.reference binary ins(lhs = %lhs : !onednn.memory<1x8xf32>, rhs = %rhs : !onednn.memory<2x8xf32>) outs(result = %result0 : {{.*}}) {alg = "div", post_ops = []}
func.func @binary_broadcast_lhs_reference(%lhs: tensor<1x8xf32>, %rhs: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %y = dnn.binary div %lhs, %rhs : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

/// Variadic inputs are src_<i>; default sum scales written out; concat axis normalized.
// CHECK-LABEL: func.func @sum_and_concat
// CHECK:         onednn.primitive sum ins(src_0 = %a : {{.*}}, src_1 = %b : {{.*}}) outs(dst = %result0 : {{.*}}) {scales = array<f32: 1.000000e+00, 1.000000e+00>}
// CHECK:         onednn.primitive sum ins(src_0 = %a : {{.*}}, src_1 = %b : {{.*}}) outs(dst = %result1 : {{.*}}) {scales = array<f32: 5.000000e-01, 2.000000e+00>}
// CHECK:         onednn.primitive concat ins(src_0 = %a : {{.*}}, src_1 = %b : {{.*}}) outs(dst = %result2 : !onednn.memory<2x16xf32>) {axis = 1 : i64}
func.func @sum_and_concat(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x16xf32>) {
  %s = dnn.sum %a, %b : tensor<2x8xf32>
  %t = dnn.sum %a, %b {scales = array<f32: 0.5, 2.0>} : tensor<2x8xf32>
  %c = dnn.concat %a, %b {axis = -1 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x16xf32>
  func.return %s, %t, %c : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x16xf32>
}

// -----

/// reorder, cast, transpose and unit-step slice are reorders (blocked memories in the arena at
/// their padded size); a strided slice runs the reference kernel.
// CHECK-LABEL: func.func @data_movement
// CHECK-SAME:    onednn.arena_bytes = 1536 : i64
// CHECK:         %[[R:.*]] = onednn.arena_view 0 : !onednn.memory<1x16x4x4xf32, nChw16c>
// CHECK-NEXT:    onednn.primitive reorder ins(src = %src : !onednn.memory<1x16x4x4xf32>) outs(dst = %[[R]] : !onednn.memory<1x16x4x4xf32, nChw16c>){{$}}
// CHECK-NEXT:    %[[C:.*]] = onednn.arena_view 1024 : !onednn.memory<1x16x4x4xbf16, nChw16c>
// CHECK-NEXT:    onednn.primitive reorder ins(src = %[[R]] : {{.*}}) outs(dst = %[[C]] : !onednn.memory<1x16x4x4xbf16, nChw16c>){{$}}
// CHECK-NEXT:    onednn.primitive reorder ins(src = %[[C]] : {{.*}}) outs(dst = %result0 : !onednn.memory<1x16x4x4xbf16>){{$}}
// CHECK-NEXT:    onednn.primitive reorder ins(src = %src : {{.*}}) outs(dst = %result1 : !onednn.memory<4x4x16x1xf32>) {permutation = array<i64: 3, 2, 1, 0>}
// CHECK-NEXT:    onednn.primitive reorder ins(src = %src : {{.*}}) outs(dst = %result2 : !onednn.memory<1x8x2x4xf32>) {starts = array<i64: 0, 8, 2, 0>}
// CHECK-NEXT:    onednn.reference slice ins(src = %src : {{.*}}) outs(result = %result3 : !onednn.memory<1x8x2x2xf32>) {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 16, 4, 4>, steps = array<i64: 1, 2, 2, 2>}
func.func @data_movement(%src: tensor<1x16x4x4xf32>) -> (tensor<1x16x4x4xbf16>, tensor<4x4x16x1xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x2xf32>) {
  %r = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  %c = dnn.cast %r : (tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>) -> tensor<1x16x4x4xbf16, #dnn.layout<nChw16c>>
  %p = dnn.reorder %c : (tensor<1x16x4x4xbf16, #dnn.layout<nChw16c>>) -> tensor<1x16x4x4xbf16>
  %t = dnn.transpose %src {permutation = array<i64: 3, 2, 1, 0>} : (tensor<1x16x4x4xf32>) -> tensor<4x4x16x1xf32>
  %s = dnn.slice %src {starts = array<i64: 0, 8, 2, 0>, ends = array<i64: 1, 16, 4, 4>} : (tensor<1x16x4x4xf32>) -> tensor<1x8x2x4xf32>
  %q = dnn.slice %src {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 1, 16, 4, 4>, steps = array<i64: 1, 2, 2, 2>} : (tensor<1x16x4x4xf32>) -> tensor<1x8x2x2xf32>
  func.return %p, %t, %s, %q : tensor<1x16x4x4xbf16>, tensor<4x4x16x1xf32>, tensor<1x8x2x4xf32>, tensor<1x8x2x2xf32>
}

// -----

/// top_k always runs the reference kernel: outs named values and indices.
// CHECK-LABEL: func.func @top_k
// CHECK:         onednn.reference top_k ins(src = %src : {{.*}}) outs(values = %result0 : !onednn.memory<2x3xf32>, indices = %result1 : !onednn.memory<2x3xi64>) {k = 3 : i64, axis = 1 : i64, largest = false, sorted = true}
func.func @top_k(%src: tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = dnn.top_k %src {k = 3 : i64, largest = false} : (tensor<2x8xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  func.return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

/// cumsum runs the reference kernel with every property, defaults included.
// CHECK-LABEL: func.func @cumsum
// CHECK:         onednn.reference cumsum ins(src = %ids : {{.*}}) outs(result = %result0 : !onednn.memory<2x8xi32>) {axis = 1 : i64, exclusive = false, reverse = true}
func.func @cumsum(%ids: tensor<2x8xi32>) -> tensor<2x8xi32> {
  %y = dnn.cumsum %ids {axis = 1 : i64, reverse = true} : (tensor<2x8xi32>) -> tensor<2x8xi32>
  func.return %y : tensor<2x8xi32>
}

// -----

/// Ops on i64 run reference kernels named like the op, roles named like its operands and
/// results; an i64 input returned as a result is copied by the reference reorder.
// CHECK-LABEL: func.func @i64_reference
// CHECK:         onednn.reference binary ins(lhs = %ids : !onednn.memory<2x3xi64>, rhs = %ids : !onednn.memory<2x3xi64>) outs(result = %{{.*}} : !onednn.memory<2x3xi64>) {alg = "add", post_ops = []}
// CHECK:         onednn.reference cast ins(src = %{{.*}} : !onednn.memory<2x3xi64>) outs(result = %result0 : !onednn.memory<2x3xf32>) {dtype = "f32"}
// CHECK-NEXT:    onednn.reference reorder ins(src = %ids : !onednn.memory<2x3xi64>) outs(dst = %result1 : !onednn.memory<2x3xi64>)
func.func @i64_reference(%ids: tensor<2x3xi64>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %s = dnn.binary add %ids, %ids : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %f = dnn.cast %s : (tensor<2x3xi64>) -> tensor<2x3xf32>
  func.return %f, %ids : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

/// Results that cannot be written directly are copied at the end: an input, a constant, and a
/// value returned twice (written into its first result, copied into the second).
// CHECK-LABEL: func.func @copies_into_results
// CHECK:         %[[C:.*]] = onednn.constant %c
// CHECK-NEXT:    onednn.primitive binary ins(src_0 = %x : {{.*}}, src_1 = %[[C]] : {{.*}}) outs(dst = %result1 : {{.*}})
// CHECK-NEXT:    onednn.primitive reorder ins(src = %x : {{.*}}) outs(dst = %result0 : {{.*}})
// CHECK-NEXT:    onednn.primitive reorder ins(src = %[[C]] : {{.*}}) outs(dst = %result2 : {{.*}})
// CHECK-NEXT:    onednn.primitive reorder ins(src = %result1 : {{.*}}) outs(dst = %result3 : {{.*}})
// CHECK-NEXT:    func.return
func.func @copies_into_results(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %c = dnn.constant dense<1.0> : tensor<64xf32>
  %a = dnn.binary add %x, %c : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  func.return %x, %a, %c, %a : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

/// A sum post-op accumulates into dst: its argument is copied into the dst buffer first.
// CHECK-LABEL: func.func @sum_post_op_copies_into_dst
// CHECK:         %[[P:.*]] = onednn.arena_view 0
// CHECK-NEXT:    onednn.primitive eltwise ins(src = %src : {{.*}}) outs(dst = %[[P]] : {{.*}})
// CHECK-NEXT:    %[[D:.*]] = onednn.arena_view 256
// CHECK-NEXT:    onednn.primitive reorder ins(src = %[[P]] : {{.*}}) outs(dst = %[[D]] : {{.*}})
// CHECK-NEXT:    onednn.primitive convolution ins(src = %src : {{.*}}, weights = %wei : {{.*}}, post_arg_0 = %[[D]] : {{.*}}) outs(dst = %[[D]] : {{.*}}) {{{.*}}post_ops = [#dnn.eltwise<relu>, #dnn.sum<0.5>]}
func.func @sum_post_op_copies_into_dst(%src: tensor<1x4x4x4xf32>, %wei: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %p = dnn.eltwise relu %src : tensor<1x4x4x4xf32>
  %y = dnn.conv2d %src, %wei post_args(%p : tensor<1x4x4x4xf32>) {post_ops = [#dnn.eltwise<relu>, #dnn.sum<0.5>]} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %z = dnn.eltwise tanh %y : tensor<1x4x4x4xf32>
  func.return %z : tensor<1x4x4x4xf32>
}

// -----

/// The plan put the conv result in its sum argument's buffer (dnn.inplace): no copy.
// CHECK-LABEL: func.func @sum_post_op_in_place
// CHECK-SAME:    onednn.arena_bytes = 256 : i64
// CHECK:         %[[P:.*]] = onednn.arena_view 0
// CHECK-NEXT:    onednn.primitive eltwise
// CHECK-NEXT:    onednn.primitive convolution ins(src = %src : {{.*}}, weights = %wei : {{.*}}, post_arg_0 = %[[P]] : {{.*}}) outs(dst = %[[P]] : {{.*}})
func.func @sum_post_op_in_place(%src: tensor<1x4x4x4xf32>, %wei: tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %p = dnn.eltwise relu %src : tensor<1x4x4x4xf32>
  %y = dnn.conv2d %src, %wei post_args(%p : tensor<1x4x4x4xf32>) {post_ops = [#dnn.sum<1.0>], dnn.inplace = array<i64: 2>} : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %z = dnn.eltwise tanh %y : tensor<1x4x4x4xf32>
  func.return %z : tensor<1x4x4x4xf32>
}

// -----

/// In place: the same memory in ins and outs.
// CHECK-LABEL: func.func @inplace_eltwise
// CHECK:         %[[A:.*]] = onednn.arena_view 0 : !onednn.memory<64xf32>
// CHECK:         onednn.primitive eltwise ins(src = %[[A]] : {{.*}}) outs(dst = %[[A]] : {{.*}}) {alg = "tanh"
func.func @inplace_eltwise(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  %b = dnn.eltwise tanh %a {dnn.inplace = array<i64: 0>} : tensor<64xf32>
  %c = dnn.eltwise exp %b : tensor<64xf32>
  func.return %c : tensor<64xf32>
}

// -----

/// A class returned through a reshape is written into a view of the result array.
// CHECK-LABEL: func.func @inplace_into_result
// CHECK-SAME:    onednn.arena_bytes = 0 : i64
// CHECK:         %[[V:.*]] = onednn.reshape %result0 : !onednn.memory<64xf32> -> !onednn.memory<4x16xf32>
// CHECK-NEXT:    onednn.primitive eltwise ins(src = %x : {{.*}}) outs(dst = %[[V]] : {{.*}})
// CHECK-NEXT:    onednn.primitive eltwise ins(src = %[[V]] : {{.*}}) outs(dst = %[[V]] : {{.*}})
// CHECK-NOT:     reorder
// CHECK:         func.return
func.func @inplace_into_result(%x: tensor<4x16xf32>) -> tensor<64xf32> {
  %a = dnn.eltwise relu %x : tensor<4x16xf32>
  %b = dnn.eltwise tanh %a {dnn.inplace = array<i64: 0>} : tensor<4x16xf32>
  %r = dnn.reshape %b : (tensor<4x16xf32>) -> tensor<64xf32>
  func.return %r : tensor<64xf32>
}

// -----

/// A commutative binary in place over its rhs: the operands are swapped, so that the memory
/// written is src_0 (oneDNN runs in place over src_0 only).
// CHECK-LABEL: func.func @binary_inplace_over_rhs_swapped
// CHECK:         onednn.primitive eltwise ins(src = %x : {{.*}}) outs(dst = %[[A:[^ ]*]] : {{.*}}) {alg = "relu"
// CHECK:         onednn.primitive eltwise ins(src = %x : {{.*}}) outs(dst = %[[B:[^ ]*]] : {{.*}}) {alg = "tanh"
// CHECK:         onednn.primitive binary ins(src_0 = %[[B]] : {{.*}}, src_1 = %[[A]] : {{.*}}) outs(dst = %[[B]] : {{.*}}) {alg = "max"
func.func @binary_inplace_over_rhs_swapped(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %a = dnn.eltwise relu %x : tensor<64xf32>
  %b = dnn.eltwise tanh %x : tensor<64xf32>
  %c = dnn.binary max %a, %b {dnn.inplace = array<i64: 1>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  func.return %c, %a : tensor<64xf32>, tensor<64xf32>
}

// -----

/// A reorder between layouts that differ only in where the unit dims go moves no byte: a
/// view of its source (no primitive, no buffer of its own). With a 2x2 image it moves data.
// CHECK-LABEL: func.func @reorder_of_unit_dims
// CHECK:         onednn.primitive eltwise ins(src = %x : {{.*}}) outs(dst = %[[A:.*]] : !onednn.memory<1x16x1x1xf32>)
// CHECK-NEXT:    %[[V:.*]] = onednn.reshape %[[A]] : !onednn.memory<1x16x1x1xf32> -> !onednn.memory<1x16x1x1xf32, nhwc>
// CHECK-NEXT:    %[[B:.*]] = onednn.arena_view
// CHECK-NEXT:    onednn.primitive eltwise ins(src = %[[V]] : {{.*}}) outs(dst = %[[B]] : !onednn.memory<1x16x1x1xf32, nhwc>)
// CHECK-NEXT:    %[[W:.*]] = onednn.reshape %[[B]] : !onednn.memory<1x16x1x1xf32, nhwc> -> !onednn.memory<1x16x1x1xf32>
// CHECK-NEXT:    onednn.primitive eltwise ins(src = %[[W]] : {{.*}}) outs(dst = %result0 : {{.*}})
// CHECK:         onednn.primitive reorder ins(src = %y : !onednn.memory<1x16x2x2xf32>) outs(dst = %{{.*}} : !onednn.memory<1x16x2x2xf32, nhwc>)
func.func @reorder_of_unit_dims(%x: tensor<1x16x1x1xf32>, %y: tensor<1x16x2x2xf32>) -> (tensor<1x16x1x1xf32>, tensor<1x16x2x2xf32>) {
  %a = dnn.eltwise relu %x : tensor<1x16x1x1xf32>
  %r = dnn.reorder %a : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32, #dnn.layout<nhwc>>
  %b = dnn.eltwise relu %r : tensor<1x16x1x1xf32, #dnn.layout<nhwc>>
  %p = dnn.reorder %b : (tensor<1x16x1x1xf32, #dnn.layout<nhwc>>) -> tensor<1x16x1x1xf32>
  %c = dnn.eltwise relu %p : tensor<1x16x1x1xf32>
  %q = dnn.reorder %y : (tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32, #dnn.layout<nhwc>>
  %d = dnn.eltwise relu %q : tensor<1x16x2x2xf32, #dnn.layout<nhwc>>
  %e = dnn.reorder %d : (tensor<1x16x2x2xf32, #dnn.layout<nhwc>>) -> tensor<1x16x2x2xf32>
  func.return %c, %e : tensor<1x16x1x1xf32>, tensor<1x16x2x2xf32>
}

// -----

/// dnn.quantize per tensor with a constant zero point: a binary division by the scale, then
/// round (half to even) and + zero point as post-ops (ONNX's order, exact), no linear
/// post-op for a zero point of 0; with a run-time zero point a reorder with dst scale and
/// zero point (which multiplies by the reciprocal and rounds after adding it).
// CHECK-LABEL: func.func @quantize
// CHECK:         onednn.primitive binary ins(src_0 = %x : !onednn.memory<2x3xf32>, src_1 = %{{.*}} : !onednn.memory<f32>) outs(dst = %result0 : !onednn.memory<2x3xui8>) {alg = "div", post_ops = [#dnn.eltwise<round>, #dnn.eltwise<linear, 1.0, 3.0>]}
// CHECK-NEXT:    onednn.primitive binary ins(src_0 = %x : !onednn.memory<2x3xf32>, src_1 = %{{.*}} : !onednn.memory<f32>) outs(dst = %result1 : !onednn.memory<2x3xi8>) {alg = "div", post_ops = [#dnn.eltwise<round>]}
// CHECK-NEXT:    onednn.primitive reorder ins(src = %x : !onednn.memory<2x3xf32>, dst_scale = %{{.*}} : !onednn.memory<f32>, dst_zero_point = %z : !onednn.memory<ui8>) outs(dst = %result2 : !onednn.memory<2x3xui8>)
// CHECK-NOT:     onednn.primitive
func.func @quantize(%x: tensor<2x3xf32>, %z: tensor<ui8>) -> (tensor<2x3xui8>, tensor<2x3xi8>, tensor<2x3xui8>) {
  %s = dnn.constant dense<2.500000e-01> : tensor<f32>
  %zc = dnn.constant dense<3> : tensor<ui8>
  %z0 = dnn.constant dense<0> : tensor<i8>
  %q = dnn.quantize %x, %s, %zc : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  %q0 = dnn.quantize %x, %s, %z0 : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  %qr = dnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  func.return %q, %q0, %qr : tensor<2x3xui8>, tensor<2x3xi8>, tensor<2x3xui8>
}
