// RUN: dnnc-opt %s -p dnn-select-kernels --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-select-kernels --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// A convolution runs the oneDNN primitive in its operand type.
// CHECK-LABEL: func.func @conv2d_onednn
// CHECK:         dnn.conv2d {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
func.func @conv2d_onednn(%src: tensor<1x8x6x6xf32>, %wei: tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %c = dnn.conv2d %src, %wei : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  func.return %c : tensor<1x16x4x4xf32>
}

// -----

/// top_k has no oneDNN primitive: the reference kernel.
// CHECK-LABEL: func.func @top_k_reference
// CHECK:         dnn.top_k {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
func.func @top_k_reference(%src: tensor<6x10xf32>) -> tensor<6x3xf32> {
  %v, %i = dnn.top_k %src {k = 3 : i64} : (tensor<6x10xf32>) -> (tensor<6x3xf32>, tensor<6x3xi64>)
  func.return %v : tensor<6x3xf32>
}

// -----

/// A slice with steps is no sub-memory: the reference kernel; with steps 1, a oneDNN reorder.
// CHECK-LABEL: func.func @slice_steps_reference
// CHECK:         dnn.slice {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
// CHECK:         dnn.slice {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
func.func @slice_steps_reference(%src: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = dnn.slice %src {starts = array<i64: 0, 0>, ends = array<i64: 8, 8>, steps = array<i64: 2, 1>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  %b = dnn.slice %src {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>} : (tensor<8x8xf32>) -> tensor<4x8xf32>
  func.return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

/// Sources and reshape run no kernel.
// CHECK-LABEL: func.func @negative_weight_reshape_no_kernel
// CHECK-NOT:     dnn.kernel
// CHECK:         func.return
func.func @negative_weight_reshape_no_kernel() -> tensor<16xf32> {
  %w = dnn.weight "w.npz", "w" : tensor<4x4xf32>
  %r = dnn.reshape %w : (tensor<4x4xf32>) -> tensor<16xf32>
  func.return %r : tensor<16xf32>
}

// -----

/// A kernel chosen before (here by dnn-assign-precision) is kept.
// CHECK-LABEL: func.func @negative_kernel_kept
// CHECK:         dnn.eltwise relu %src {dnn.kernel = #dnn.kernel<onednn, bf16>}
func.func @negative_kernel_kept(%src: tensor<4xf32>) -> tensor<4xf32> {
  %r = dnn.eltwise relu %src {dnn.kernel = #dnn.kernel<onednn, bf16>} : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

/// oneDNN has no s8 softmax: the kernel says s8 and a remark says oneDNN will refuse it.
// CHECK-LABEL: func.func @softmax_s8_unavailable
// CHECK:         dnn.softmax {{.*}}dnn.kernel = #dnn.kernel<onednn, s8>
// REMARK: dnn-select-kernels.mlir:[[# @LINE + 2]]:3: remark: oneDNN has no dnn.softmax in s8: dnn.cast it to f32
func.func @softmax_s8_unavailable(%src: tensor<2x8xi8>) -> tensor<2x8xi8> {
  %s = dnn.softmax %src {axis = 1 : i64} : tensor<2x8xi8>
  func.return %s : tensor<2x8xi8>
}
