// RUN: dnnc-opt %s -p dnn-guard-special-values --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-guard-special-values --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// The model cleans its NaN (ONNX Where(IsNaN(x), 0, x)) before a matmul and relu: no NaN of
/// %x reaches the relu, but an infinity of it can (inf - inf = NaN in the matmul), so %x is
/// guarded against +inf and -inf only; %w, not cleaned, against NaN too.
// CHECK-LABEL: func.func @nan_cleaned_matmul_relu
// CHECK-SAME:    dnn.special_value_guards = [{"+inf" = "nan reaches dnn.eltwise at {{.*}}relu(NaN) = 0", "-inf" = "nan reaches dnn.eltwise at {{[^"]*}}relu(NaN) = 0"}, {"+inf" = {{.*}}, nan = {{.*}}}]
// REMARK: dnn-guard-special-values.mlir:[[# @LINE + 3]]:1: remark: [dnn-guard-special-values] input 'x' guarded against +inf: nan reaches dnn.eltwise at {{.*}}dnn-guard-special-values.mlir:[[# @LINE + 8]]:3, whose oneDNN kernel differs: relu(NaN) = 0
// REMARK: dnn-guard-special-values.mlir:[[# @LINE + 2]]:1: remark: [dnn-guard-special-values] input 'x' guarded against -inf: nan reaches dnn.eltwise
// REMARK-NOT: input 'x' guarded against nan
func.func @nan_cleaned_matmul_relu(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %nan = dnn.compare ne %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
  %zero = dnn.constant dense<0.0> : tensor<1x1xf32>
  %clean = dnn.where %nan, %zero, %x : (tensor<2x8xi1>, tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %m = dnn.matmul %clean, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %r = dnn.eltwise relu %m : tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

/// NaN cleaned, then clipped to finite bounds (the infinities stop there; clip's own kernel
/// would drop NaN, but none is left): nothing to check. The weight input is guarded: its
/// values reach the relu through the matmul.
// CHECK-LABEL: func.func @nan_cleaned_clipped
// CHECK-SAME:    dnn.special_value_guards = [{}, {"+inf" = {{.*}}, "-inf" = {{.*}}, nan = {{.*}}}]
// REMARK: remark: [dnn-guard-special-values] input 'x' unguarded: none of its special values reaches a kernel that drops it
// REMARK: remark: [dnn-guard-special-values] input 'w' guarded against +inf: nan reaches dnn.eltwise
func.func @nan_cleaned_clipped(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %nan = dnn.compare ne %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
  %zero = dnn.constant dense<0.0> : tensor<1x1xf32>
  %clean = dnn.where %nan, %zero, %x : (tensor<2x8xi1>, tensor<1x1xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %c = dnn.eltwise clip %clean {alpha = -1.0e3 : f32, beta = 1.0e3 : f32} : tensor<2x8xf32>
  %m = dnn.matmul %c, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %r = dnn.eltwise relu %m : tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// -----

/// Where(IsNaN(x), x, 0) keeps x exactly where it is NaN: the relu sees that NaN.
// CHECK-LABEL: func.func @negative_where_keeps_the_nan
// CHECK-SAME:    dnn.special_value_guards = [{nan = "nan reaches dnn.eltwise at {{.*}}relu(NaN) = 0"}]
// REMARK: remark: [dnn-guard-special-values] input 'x' guarded against nan: nan reaches dnn.eltwise
func.func @negative_where_keeps_the_nan(%x: tensor<8xf32>) -> tensor<8xf32> {
  %nan = dnn.compare ne %x, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %zero = dnn.constant dense<0.0> : tensor<1xf32>
  %kept = dnn.where %nan, %x, %zero : (tensor<8xi1>, tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
  %r = dnn.eltwise relu %kept : tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// -----

/// The condition tests another input: the NaN of %x is not cleaned.
// CHECK-LABEL: func.func @negative_where_tests_another_value
// CHECK-SAME:    dnn.special_value_guards = [{nan = {{.*}}}, {}]
func.func @negative_where_tests_another_value(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %nan = dnn.compare ne %y, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %zero = dnn.constant dense<0.0> : tensor<1xf32>
  %clean = dnn.where %nan, %zero, %x : (tensor<8xi1>, tensor<1xf32>, tensor<8xf32>) -> tensor<8xf32>
  %r = dnn.eltwise relu %clean : tensor<8xf32>
  func.return %r : tensor<8xf32>
}

// -----

/// Where((x > 3e38 or -3e38 > x) or IsNaN(x), 0, x) cleans every kind the relu and the gelu
/// drop (as IsInf's comparisons with +-inf do; written with the largest finite floats here,
/// as xDSL reads a hex float back as an integer): nothing to check, through a reshape too.
// CHECK-LABEL: func.func @all_cleaned_by_comparisons
// CHECK-SAME:    dnn.special_value_guards = [{}]
func.func @all_cleaned_by_comparisons(%x: tensor<2x4xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %pos = dnn.constant dense<3.0e38> : tensor<1x1xf32>
  %neg = dnn.constant dense<-3.0e38> : tensor<1x1xf32>
  %p = dnn.compare gt %x, %pos : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xi1>
  %n = dnn.compare gt %neg, %x : (tensor<1x1xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %inf = dnn.logical or %p, %n : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %nan = dnn.compare ne %x, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %special = dnn.logical or %inf, %nan : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %zero = dnn.constant dense<0.0> : tensor<1x1xf32>
  %clean = dnn.where %special, %zero, %x : (tensor<2x4xi1>, tensor<1x1xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %flat = dnn.reshape %clean : (tensor<2x4xf32>) -> tensor<8xf32>
  %r = dnn.eltwise relu %flat : tensor<8xf32>
  %g = dnn.eltwise gelu_erf %flat : tensor<8xf32>
  func.return %r, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

/// Where(x > 0, x, 0): NaN and -inf compare false, so only +inf reaches the relu, which keeps
/// it; the exp beside it gets x itself, NaN included.
// CHECK-LABEL: func.func @compare_with_constant
// CHECK-SAME:    dnn.special_value_guards = [{nan = "nan reaches dnn.eltwise at {{.*}}exp(NaN) = inf"}]
func.func @compare_with_constant(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = dnn.constant dense<0.0> : tensor<1xf32>
  %positive = dnn.compare gt %x, %zero : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xi1>
  %kept = dnn.where %positive, %x, %zero : (tensor<8xi1>, tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
  %r = dnn.eltwise relu %kept : tensor<8xf32>
  %e = dnn.eltwise exp %x : tensor<8xf32>
  func.return %r, %e : tensor<8xf32>, tensor<8xf32>
}

// -----

/// Each kernel guards the kinds it drops: gelu +inf only, log subnormals only, max pooling
/// NaN and -inf; a comparison's boolean result carries
/// nothing; a kernel pinned to its reference kernel guards nothing.
// CHECK-LABEL: func.func @kinds_per_kernel
// CHECK-SAME:    dnn.special_value_guards = [{"+inf" = "+inf reaches dnn.eltwise at {{.*}}gelu(+inf) = NaN", subnormal = "subnormal reaches dnn.eltwise at {{.*}}log of a subnormal is log(FLT_MIN)"}, {"-inf" = {{.*}}, nan = "nan reaches dnn.pool at {{.*}}a max window of only NaN or -inf gives -3.4e38"}, {}]
func.func @kinds_per_kernel(%x: tensor<8xf32>, %y: tensor<1x2x4x4xf32>, %z: tensor<8xf32>) -> (tensor<8xf32>, tensor<1x2x2x2xf32>, tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) {
  %g = dnn.eltwise gelu_erf %x : tensor<8xf32>
  %l = dnn.eltwise log %x : tensor<8xf32>
  %p = dnn.pool max %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %c = dnn.compare lt %z, %z : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %e = dnn.eltwise exp %z {dnn.kernel = #dnn.kernel<reference, f32>} : tensor<8xf32>
  func.return %g, %p, %c, %e, %l : tensor<8xf32>, tensor<1x2x2x2xf32>, tensor<8xi1>, tensor<8xf32>, tensor<8xf32>
}

// -----

/// A relu fused into the matmul as a post-op reads the matmul's result: any special value
/// of either operand may reach it as NaN.
// CHECK-LABEL: func.func @fused_post_op
// CHECK-SAME:    dnn.special_value_guards = [{"+inf" = "nan reaches dnn.matmul at {{.*}}its relu post-op: relu(NaN) = 0", {{.*}}}, {{.*}}]
func.func @fused_post_op(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %m = dnn.matmul %x, %w {post_ops = [#dnn.eltwise<relu>]} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  func.return %m : tensor<2x4xf32>
}
