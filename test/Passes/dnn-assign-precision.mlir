// REQUIRES: libdnnl
// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-precision{dtype=bf16}' --split-input-file | filecheck %s --check-prefixes=CHECK,%bf16-prefix
// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-precision' --split-input-file --remarks=dnn-assign-precision 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK-%bf16-prefix
// RUN: not dnnc-opt %s -p 'dnn-assign-precision{dtype=f16}' 2>&1 | filecheck %s --check-prefix=ERROR

/// The decisions depend on the target: %bf16-prefix is BF16 where oneDNN computes natively
/// in bf16 (AVX-512 and newer with oneDNN 3.2), else NOBF16 (AVX2). CI runs this file on
/// both paths of an AVX-512 machine (a second run under ONEDNN_MAX_CPU_ISA=AVX2).

// ERROR: error: invalid options for pass 'dnn-assign-precision': dtype=f16 is not one of bf16

/// Without native bf16 compute the graph stays f32, with one warning (not one per op).
// REMARK-NOBF16: warning: dnn-assign-precision: oneDNN {{.*}} has no native bf16 convolution, matmul or inner product on this CPU (effective ISA {{.*}}): the graph stays f32
// REMARK-NOBF16-NOT: warning
// REMARK-NOBF16-NOT: remark
// REMARK-BF16-NOT: warning

/// conv2d and relu compute in bf16 (the casts come from dnn-insert-data-transforms).
// CHECK-LABEL: func.func @conv2d_relu_bf16
// BF16:          dnn.conv2d {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
// BF16:          dnn.eltwise relu {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
// NOBF16:        dnn.conv2d {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// NOBF16:        dnn.eltwise relu {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
func.func @conv2d_relu_bf16(%src: tensor<1x8x6x6xf32>, %wei: tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  %r = dnn.eltwise relu %c : tensor<1x16x4x4xf32>
  func.return %r : tensor<1x16x4x4xf32>
}

// -----

/// oneDNN 3.2 has only a reference bf16 LRN (ref:any) even with AVX-512 bf16: kept f32,
/// while the convolution beside it is lowered.
// CHECK-LABEL: func.func @negative_lrn_reference_only_kept_f32
// BF16:          dnn.conv2d {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
// CHECK:         dnn.lrn {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// REMARK-BF16: dnn-assign-precision.mlir:[[# @LINE + 3]]:3: remark: [dnn-assign-precision] kept f32: oneDNN has only a reference bf16 lrn on {{avx512.*|amx.*}}
func.func @negative_lrn_reference_only_kept_f32(%src: tensor<1x8x6x6xf32>, %wei: tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  %l = dnn.lrn across_channels %c {size = 5 : i64} : tensor<1x16x4x4xf32>
  func.return %l : tensor<1x16x4x4xf32>
}

// -----

/// Softmax and layer norm read and write bf16 (oneDNN keeps their max / sum, mean / variance
/// in f32 inside the kernel); log_softmax stays f32 (its results near 0 need f32's precision).
// CHECK-LABEL: func.func @softmax_layer_norm_bf16_log_softmax_kept_f32
// BF16:          dnn.softmax {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
// BF16:          dnn.layer_norm {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
// NOBF16:        dnn.softmax {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// CHECK:         dnn.log_softmax {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// REMARK-BF16: dnn-assign-precision.mlir:[[# @LINE + 4]]:3: remark: [dnn-assign-precision] kept f32: dnn.log_softmax results near 0 need f32's relative precision
func.func @softmax_layer_norm_bf16_log_softmax_kept_f32(%src: tensor<2x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %s = dnn.softmax %src {axis = 1 : i64} : tensor<2x8xf32>
  %n = dnn.layer_norm %s scale(%gamma : tensor<8xf32>) shift(%beta : tensor<8xf32>) : tensor<2x8xf32>
  %l = dnn.log_softmax %src {axis = 1 : i64} : tensor<2x8xf32>
  func.return %n, %l : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

/// top_k runs the reference kernel, which computes in its operand type.
// CHECK-LABEL: func.func @negative_reference_kept_f32
// CHECK:         dnn.top_k {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
// REMARK-BF16: remark: [dnn-assign-precision] kept f32: the reference kernel computes in the operand type
func.func @negative_reference_kept_f32(%src: tensor<6x10xf32>) -> tensor<6x3xf32> {
  %v, %i = dnn.top_k %src {k = 3 : i64} : (tensor<6x10xf32>) -> (tensor<6x3xf32>, tensor<6x3xi64>)
  func.return %v : tensor<6x3xf32>
}

// -----

/// Integer kernels are not f32: left alone, without a remark.
// CHECK-LABEL: func.func @negative_integer_kernel
// CHECK:         dnn.eltwise relu {{.*}}dnn.kernel = #dnn.kernel<onednn, s8>
func.func @negative_integer_kernel(%src: tensor<8xi8>) -> tensor<8xi8> {
  %r = dnn.eltwise relu %src : tensor<8xi8>
  func.return %r : tensor<8xi8>
}

// -----

/// Explicit casts run in their source type: no choice to make.
// CHECK-LABEL: func.func @negative_cast_kept
// CHECK:         dnn.cast {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
func.func @negative_cast_kept(%src: tensor<8xf32>) -> tensor<8xbf16> {
  %c = dnn.cast %src : (tensor<8xf32>) -> tensor<8xbf16>
  func.return %c : tensor<8xbf16>
}
