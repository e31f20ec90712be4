// RUN: dnnc-opt %s -p dnn-insert-data-transforms --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-insert-data-transforms --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// The recorded layouts become types: the argument is reordered once for both readers, the
/// results follow, and the function result is reordered back to plain.
// CHECK-LABEL: func.func @reorder_shared_and_back
// CHECK:         %[[R:.*]] = dnn.reorder %src {dnn.kernel = #dnn.kernel<onednn, f32>} : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
// CHECK-NEXT:    %[[A:.*]] = dnn.eltwise relu %[[R]] : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
// CHECK-NEXT:    %[[B:.*]] = dnn.eltwise tanh %[[R]] : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
// CHECK-NEXT:    %[[S:.*]] = dnn.binary add %[[A]], %[[B]] : (tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>, tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
// CHECK-NEXT:    %[[P:.*]] = dnn.reorder %[[S]] {{.*}} -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    func.return %[[P]]
// CHECK-NOT:     dnn.operand_layouts
// REMARK: remark: [dnn-insert-data-transforms] 2 run-time reorders moving 4096 bytes, 0 casts
func.func @reorder_shared_and_back(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %a = dnn.eltwise relu %src {dnn.operand_layouts = [#dnn.layout<nChw16c>]} : tensor<1x16x4x4xf32>
  %b = dnn.eltwise tanh %src {dnn.operand_layouts = [#dnn.layout<nChw16c>]} : tensor<1x16x4x4xf32>
  %s = dnn.binary add %a, %b {dnn.operand_layouts = [#dnn.layout<nChw16c>, #dnn.layout<nChw16c>]} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  func.return %s : tensor<1x16x4x4xf32>
}

// -----

/// A bf16 kernel: reorder first, then cast; the bias stays f32; the result is cast back.
// CHECK-LABEL: func.func @reorder_then_cast
// CHECK-DAG:     %[[W:.*]] = dnn.cast %wei {{.*}} -> tensor<16x8x3x3xbf16>
// CHECK-DAG:     %[[R:.*]] = dnn.reorder %src {{.*}} -> tensor<1x8x6x6xf32, #dnn.layout<nhwc>>
// CHECK-DAG:     %[[C:.*]] = dnn.cast %[[R]] {dnn.kernel = #dnn.kernel<onednn, f32>} : {{.*}} -> tensor<1x8x6x6xbf16, #dnn.layout<nhwc>>
// CHECK:         %[[Y:.*]] = dnn.conv2d %[[C]], %[[W]], %bias {{.*}} : (tensor<1x8x6x6xbf16, #dnn.layout<nhwc>>, tensor<16x8x3x3xbf16>, tensor<16xf32>) -> tensor<1x16x4x4xbf16, #dnn.layout<nhwc>>
// CHECK-NEXT:    %[[P:.*]] = dnn.reorder %[[Y]] {dnn.kernel = #dnn.kernel<onednn, bf16>} {{.*}} -> tensor<1x16x4x4xbf16>
// CHECK-NEXT:    %[[F:.*]] = dnn.cast %[[P]] {{.*}} -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    func.return %[[F]]
func.func @reorder_then_cast(%src: tensor<1x8x6x6xf32>, %wei: tensor<16x8x3x3xf32>, %bias: tensor<16xf32>) -> tensor<1x16x4x4xf32> {
  %c = dnn.conv2d %src, %wei, %bias {dnn.kernel = #dnn.kernel<onednn, bf16>, dnn.operand_layouts = [#dnn.layout<nhwc>, #dnn.layout<oihw>, #dnn.layout<x>]} : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  func.return %c : tensor<1x16x4x4xf32>
}

// -----

/// A bf16 depthwise convolution reads its bias in bf16 as well (oneDNN 3.2's brdgmm_dw takes
/// a bias only in the destination's type); a grouped convolution with four channels per
/// group is not depthwise: its bias stays f32.
// CHECK-LABEL: func.func @depthwise_bias_in_bf16
// CHECK-DAG:     %[[B:.*]] = dnn.cast %bias {{.*}} : (tensor<8xf32>) -> tensor<8xbf16>
// CHECK:         %d = dnn.conv2d %{{.*}}, %{{.*}}, %[[B]] {{.*}}groups = 8 : i64} : ({{.*}}, tensor<8xbf16>) -> tensor<1x8x6x6xbf16>
// CHECK:         %g = dnn.conv2d %{{.*}}, %{{.*}}, %bias {{.*}}groups = 2 : i64} : ({{.*}}, tensor<8xf32>) -> tensor<1x8x6x6xbf16>
func.func @depthwise_bias_in_bf16(%src: tensor<1x8x6x6xf32>, %dw: tensor<8x1x3x3xf32>, %grouped: tensor<8x4x3x3xf32>, %bias: tensor<8xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %d = dnn.conv2d %src, %dw, %bias {dnn.kernel = #dnn.kernel<onednn, bf16>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, groups = 8 : i64} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %g = dnn.conv2d %src, %grouped, %bias {dnn.kernel = #dnn.kernel<onednn, bf16>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x8x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  func.return %d, %g : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}

// -----

/// An f16 model's convolution on an f32 kernel: the bias is cast to f32 as well (oneDNN
/// has no f32 convolution with an f16 bias); a layer norm's f16 scale and shift likewise
/// (oneDNN reads them in f32); a reference kernel's operands stay as they are.
// CHECK-LABEL: func.func @f16_model_on_f32_kernels
// CHECK-DAG:     %[[B:.*]] = dnn.cast %bias {{.*}} : (tensor<8xf16>) -> tensor<8xf32>
// CHECK-DAG:     %[[S:.*]] = dnn.cast %scale {{.*}} : (tensor<6xf16>) -> tensor<6xf32>
// CHECK:         %c = dnn.conv2d %{{.*}}, %{{.*}}, %[[B]] {{.*}} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
// CHECK:         %n = dnn.layer_norm %c scale(%[[S]] : tensor<6xf32>) shift(%[[S]] : tensor<6xf32>) {{.*}} : tensor<1x8x6x6xf32>
// CHECK:         %s = dnn.cumsum %scale {{.*}} : (tensor<6xf16>) -> tensor<6xf16>
func.func @f16_model_on_f32_kernels(%src: tensor<1x4x6x6xf16>, %w: tensor<8x4x3x3xf16>, %bias: tensor<8xf16>, %scale: tensor<6xf16>) -> (tensor<1x8x6x6xf16>, tensor<6xf16>) {
  %c = dnn.conv2d %src, %w, %bias {dnn.kernel = #dnn.kernel<onednn, f32>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x4x6x6xf16>, tensor<8x4x3x3xf16>, tensor<8xf16>) -> tensor<1x8x6x6xf16>
  %n = dnn.layer_norm %c scale(%scale : tensor<6xf16>) shift(%scale : tensor<6xf16>) {dnn.kernel = #dnn.kernel<onednn, f32>} : tensor<1x8x6x6xf16>
  %s = dnn.cumsum %scale {dnn.kernel = #dnn.kernel<reference, f16>, axis = 0 : i64} : (tensor<6xf16>) -> tensor<6xf16>
  func.return %n, %s : tensor<1x8x6x6xf16>, tensor<6xf16>
}

// -----

/// Types already as expected: nothing is inserted.
// CHECK-LABEL: func.func @negative_types_match
// CHECK-NOT:     dnn.reorder
// CHECK-NOT:     dnn.cast
// CHECK:         func.return
func.func @negative_types_match(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %a = dnn.eltwise relu %src {dnn.kernel = #dnn.kernel<onednn, f32>, dnn.operand_layouts = [#dnn.layout<nchw>]} : tensor<1x16x4x4xf32>
  func.return %a : tensor<1x16x4x4xf32>
}

// -----

/// An explicit reorder keeps its target layout; its source is brought back to the layout it
/// had (dnn-remove-redundant-reorders then collapses the pair).
// CHECK-LABEL: func.func @explicit_reorder_kept
// CHECK:         %[[A:.*]] = dnn.eltwise relu {{.*}} : tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
// CHECK-NEXT:    %[[P:.*]] = dnn.reorder %[[A]] {{.*}} -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %[[R:.*]] = dnn.reorder %[[P]] : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
func.func @explicit_reorder_kept(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>> {
  %a = dnn.eltwise relu %src {dnn.operand_layouts = [#dnn.layout<nhwc>]} : tensor<1x16x4x4xf32>
  %r = dnn.reorder %a : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  func.return %r : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
}
