// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-precision{dtype=bf16}' --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-precision' --split-input-file --remarks=dnn-assign-precision 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: not dnnc-opt %s -p 'dnn-assign-precision{dtype=f16}' 2>&1 | filecheck %s --check-prefix=ERROR

// ERROR: dnn-assign-precision: dtype=f16 is not one of bf16

/// conv2d and relu compute in bf16 (the casts come from dnn-insert-data-transforms).
// CHECK-LABEL: func.func @conv2d_relu_bf16
// CHECK:         dnn.conv2d {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
// CHECK:         dnn.eltwise relu {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
func.func @conv2d_relu_bf16(%src: tensor<1x8x6x6xf32>, %wei: tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  %r = dnn.eltwise relu %c : tensor<1x16x4x4xf32>
  func.return %r : tensor<1x16x4x4xf32>
}

// -----

/// Softmax keeps its max and sum in f32.
// CHECK-LABEL: func.func @negative_softmax_kept_f32
// CHECK:         dnn.softmax {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// REMARK: dnn-assign-precision.mlir:[[# @LINE + 2]]:3: remark: kept f32: dnn.softmax keeps its statistics in f32
func.func @negative_softmax_kept_f32(%src: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %s = dnn.softmax %src {axis = 1 : i64} : tensor<2x8xf32>
  func.return %s : tensor<2x8xf32>
}

// -----

/// top_k runs the reference kernel, which computes in its operand type.
// CHECK-LABEL: func.func @negative_reference_kept_f32
// CHECK:         dnn.top_k {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
// REMARK: remark: kept f32: the reference kernel computes in the operand type
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
