// REQUIRES: libdnnl
// RUN: dnnc-opt %s -p dnn-select-kernels --split-input-file | filecheck %s --check-prefixes=CHECK,%bf16-prefix
// RUN: dnnc-opt %s -p dnn-select-kernels --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefixes=REMARK,REMARK-%bf16-prefix

/// Data types are the target's answer (dnnc.target): %bf16-prefix is BF16 where oneDNN has
/// native bf16 kernels, else NOBF16.

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

/// A linear half_pixel resize is oneDNN's linear resampling; a nearest one by whole factors is
/// oneDNN's nearest resampling with half_pixel coordinates rounded or asymmetric ones floored.
/// Other coordinates, a non-whole factor or a downsampling run the reference kernel.
// CHECK-LABEL: func.func @resize_kernels
// CHECK:         %a = dnn.resize %src {dnn.kernel = #dnn.kernel<onednn, f32>, {{.*}}mode = "linear"}
// CHECK:         %b = dnn.resize %src {dnn.kernel = #dnn.kernel<reference, f32>, {{.*}}coordinate_mode = "asymmetric"}
// CHECK:         %c = dnn.resize %src {dnn.kernel = #dnn.kernel<onednn, f32>, {{.*}}mode = "nearest"}
// CHECK:         %d = dnn.resize %src {dnn.kernel = #dnn.kernel<onednn, f32>, {{.*}}coordinate_mode = "asymmetric", nearest_mode = "floor"}
// CHECK:         %e = dnn.resize %src {dnn.kernel = #dnn.kernel<reference, f32>, {{.*}}coordinate_mode = "asymmetric"}
// CHECK:         %f = dnn.resize %src {dnn.kernel = #dnn.kernel<reference, f32>, {{.*}}nearest_mode = "floor"}
// CHECK:         %g = dnn.resize %src {dnn.kernel = #dnn.kernel<reference, f32>, {{.*}}mode = "nearest"}
// CHECK:         %h = dnn.resize %src {dnn.kernel = #dnn.kernel<reference, f32>, {{.*}}mode = "nearest"}
func.func @resize_kernels(%src: tensor<1x4x6x6xf32>) -> (tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x9x12xf32>, tensor<1x4x3x3xf32>) {
  %a = dnn.resize %src {sizes = array<i64: 1, 4, 12, 12>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, mode = "linear"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x12x12xf32>
  %b = dnn.resize %src {sizes = array<i64: 1, 4, 12, 12>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, mode = "linear", coordinate_mode = "asymmetric"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x12x12xf32>
  %c = dnn.resize %src {sizes = array<i64: 1, 4, 12, 12>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, mode = "nearest"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x12x12xf32>
  %d = dnn.resize %src {sizes = array<i64: 1, 4, 12, 12>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, mode = "nearest", coordinate_mode = "asymmetric", nearest_mode = "floor"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x12x12xf32>
  %e = dnn.resize %src {sizes = array<i64: 1, 4, 12, 12>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, mode = "nearest", coordinate_mode = "asymmetric"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x12x12xf32>
  %f = dnn.resize %src {sizes = array<i64: 1, 4, 12, 12>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>, mode = "nearest", nearest_mode = "floor"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x12x12xf32>
  %g = dnn.resize %src {sizes = array<i64: 1, 4, 9, 12>, scales = array<f64: 1.0, 1.0, 1.5, 2.0>, mode = "nearest"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x9x12xf32>
  %h = dnn.resize %src {sizes = array<i64: 1, 4, 3, 3>, scales = array<f64: 1.0, 1.0, 0.5, 0.5>, mode = "nearest"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
  func.return %a, %b, %c, %d, %e, %f, %g, %h : tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x12x12xf32>, tensor<1x4x9x12xf32>, tensor<1x4x3x3xf32>
}

// -----

/// An eltwise algorithm oneDNN lacks runs its reference kernel; one it has runs oneDNN's.
// CHECK-LABEL: func.func @softsign_reference
// CHECK:         dnn.eltwise softsign {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
// CHECK:         dnn.eltwise tanh {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
func.func @softsign_reference(%src: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %s = dnn.eltwise softsign %src : tensor<6x10xf32>
  %t = dnn.eltwise tanh %s : tensor<6x10xf32>
  func.return %t : tensor<6x10xf32>
}

// -----

/// Rotary embeddings' sin and cos: oneDNN 3.2 has neither, so both run their reference kernel.
// CHECK-LABEL: func.func @sin_cos_reference
// CHECK:         dnn.eltwise sin {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
// CHECK:         dnn.eltwise cos {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
func.func @sin_cos_reference(%src: tensor<1x4x16xf32>) -> tensor<1x4x16xf32> {
  %s = dnn.eltwise sin %src : tensor<1x4x16xf32>
  %c = dnn.eltwise cos %s : tensor<1x4x16xf32>
  func.return %c : tensor<1x4x16xf32>
}

// -----

/// oneDNN computes on neither i64 nor i1: every op on them runs its reference kernel, in
/// their type; a cast from f32 to i64 too, while f32 ops beside them stay on oneDNN.
// CHECK-LABEL: func.func @i64_and_i1_reference
// CHECK:         dnn.binary add {{.*}}dnn.kernel = #dnn.kernel<reference, s64>
// CHECK-NEXT:    dnn.cast {{.*}}dnn.kernel = #dnn.kernel<reference, s64>
// CHECK-NEXT:    dnn.binary mul {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// CHECK-NEXT:    dnn.cast {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
// CHECK-NEXT:    dnn.concat {{.*}}dnn.kernel = #dnn.kernel<reference, boolean>
func.func @i64_and_i1_reference(%ids: tensor<2x3xi64>, %x: tensor<2x3xf32>, %m: tensor<2x3xi1>) -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x6xi1>) {
  %s = dnn.binary add %ids, %ids : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %f = dnn.cast %s : (tensor<2x3xi64>) -> tensor<2x3xf32>
  %y = dnn.binary mul %f, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %i = dnn.cast %y : (tensor<2x3xf32>) -> tensor<2x3xi64>
  %c = dnn.concat %m, %m {axis = 1 : i64} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x6xi1>
  func.return %y, %i, %c : tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x6xi1>
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

/// oneDNN has no s8 LRN on any CPU: the kernel says s8 and a remark says oneDNN will refuse it.
// CHECK-LABEL: func.func @lrn_s8_unavailable
// CHECK:         dnn.lrn {{.*}}dnn.kernel = #dnn.kernel<onednn, s8>
// REMARK: dnn-select-kernels.mlir:[[# @LINE + 2]]:3: remark: [dnn-select-kernels] oneDNN has no dnn.lrn in s8 on {{.*}}: dnn.cast it to f32
func.func @lrn_s8_unavailable(%src: tensor<1x16x4x4xi8>) -> tensor<1x16x4x4xi8> {
  %s = dnn.lrn across_channels %src {size = 5 : i64} : tensor<1x16x4x4xi8>
  func.return %s : tensor<1x16x4x4xi8>
}

// -----

/// A bf16 eltwise runs in bf16 where oneDNN has a native bf16 kernel (AVX-512); on AVX2
/// oneDNN 3.2 has none, so it computes in f32 (dnn-insert-data-transforms adds the casts).
// CHECK-LABEL: func.func @eltwise_bf16
// BF16:          dnn.eltwise relu {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
// NOBF16:        dnn.eltwise relu {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// REMARK-NOBF16: dnn-select-kernels.mlir:[[# @LINE + 3]]:3: remark: [dnn-select-kernels] computed in f32: oneDNN has no native bf16 eltwise on {{.*}}
// REMARK-BF16-NOT: eltwise
func.func @eltwise_bf16(%src: tensor<1x16x4x4xbf16>) -> tensor<1x16x4x4xbf16> {
  %r = dnn.eltwise relu %src : tensor<1x16x4x4xbf16>
  func.return %r : tensor<1x16x4x4xbf16>
}

// -----

/// oneDNN's bf16 LRN is ref:any at best: f32 on every CPU.
// CHECK-LABEL: func.func @lrn_bf16_computed_in_f32
// CHECK:         dnn.lrn {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// REMARK: dnn-select-kernels.mlir:[[# @LINE + 2]]:3: remark: [dnn-select-kernels] computed in f32: oneDNN has no native bf16 lrn on {{.*}}
func.func @lrn_bf16_computed_in_f32(%src: tensor<1x16x4x4xbf16>) -> tensor<1x16x4x4xbf16> {
  %s = dnn.lrn across_channels %src {size = 5 : i64} : tensor<1x16x4x4xbf16>
  func.return %s : tensor<1x16x4x4xbf16>
}

// -----

/// Data movement runs in its operand type whatever oneDNN's implementation: no fallback.
// CHECK-LABEL: func.func @negative_concat_bf16_kept
// CHECK:         dnn.concat {{.*}}dnn.kernel = #dnn.kernel<onednn, bf16>
func.func @negative_concat_bf16_kept(%a: tensor<1x16x4x4xbf16>, %b: tensor<1x16x4x4xbf16>) -> tensor<1x32x4x4xbf16> {
  %c = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xbf16>, tensor<1x16x4x4xbf16>) -> tensor<1x32x4x4xbf16>
  func.return %c : tensor<1x32x4x4xbf16>
}

// -----

/// A matmul over an empty reduction (K = 0) runs the reference kernel: oneDNN would write
/// no output, where the result is zeros; with K > 0, oneDNN.
// CHECK-LABEL: func.func @matmul_empty_reduction_reference
// CHECK:         dnn.matmul {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
// CHECK:         dnn.matmul {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
func.func @matmul_empty_reduction_reference(%a: tensor<3x0xf32>, %b: tensor<0x4xf32>, %c: tensor<3x2xf32>, %d: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %e = dnn.matmul %a, %b : (tensor<3x0xf32>, tensor<0x4xf32>) -> tensor<3x4xf32>
  %f = dnn.matmul %c, %d : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  func.return %e, %f : tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

/// A cast to an integer type runs the reference kernel (ONNX truncates toward zero and wraps;
/// oneDNN's reorder rounds and saturates); a cast between float types stays on oneDNN.
// CHECK-LABEL: func.func @casts_to_integers_are_reference
// CHECK:         dnn.cast {{.*}}dnn.kernel = #dnn.kernel<reference, f32>{{.*}} -> tensor<2x3xi8>
// CHECK:         dnn.cast {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>{{.*}} -> tensor<2x3xf16>
func.func @casts_to_integers_are_reference(%x: tensor<2x3xf32>) -> (tensor<2x3xi8>, tensor<2x3xf16>) {
  %i = dnn.cast %x : (tensor<2x3xf32>) -> tensor<2x3xi8>
  %h = dnn.cast %x : (tensor<2x3xf32>) -> tensor<2x3xf16>
  func.return %i, %h : tensor<2x3xi8>, tensor<2x3xf16>
}

// -----

/// Integer division truncates toward zero in ONNX where oneDNN's binary rounds: it runs the
/// reference kernel; a float division and an integer multiplication run oneDNN's binary.
// CHECK-LABEL: func.func @integer_division
// CHECK:         %q = dnn.binary div %a, %b {dnn.kernel = #dnn.kernel<reference, s32>}
// CHECK:         %m = dnn.binary mul %a, %b {dnn.kernel = #dnn.kernel<onednn, s32>}
// CHECK:         %f = dnn.binary div %x, %y {dnn.kernel = #dnn.kernel<onednn, f32>}
func.func @integer_division(%a: tensor<4xi32>, %b: tensor<4xi32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf32>) {
  %q = dnn.binary div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %m = dnn.binary mul %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %f = dnn.binary div %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %q, %m, %f : tensor<4xi32>, tensor<4xi32>, tensor<4xf32>
}

// -----

/// Per-tensor quantization is a oneDNN reorder with run-time scale and zero point; per axis
/// (oneDNN's reorder takes common zero points only) and dynamic quantization are reference
/// kernels.
// CHECK-LABEL: func.func @quantization_kernels
// CHECK:         dnn.quantize {{.*}}dnn.kernel = #dnn.kernel<onednn, f32>
// CHECK:         dnn.dequantize {{.*}}dnn.kernel = #dnn.kernel<onednn, u8>
// CHECK:         dnn.quantize {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
// CHECK:         dnn.dynamic_quantize {{.*}}dnn.kernel = #dnn.kernel<reference, f32>
func.func @quantization_kernels(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<ui8>, %sc: tensor<3xf32>, %zc: tensor<3xi8>) -> (tensor<2x3xf32>, tensor<2x3xi8>, tensor<2x3xui8>) {
  %q = dnn.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  %d = dnn.dequantize %q, %s, %z : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %qc = dnn.quantize %d, %sc, %zc {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  %y, %ys, %yz = dnn.dynamic_quantize %x : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  func.return %d, %qc, %y : tensor<2x3xf32>, tensor<2x3xi8>, tensor<2x3xui8>
}
