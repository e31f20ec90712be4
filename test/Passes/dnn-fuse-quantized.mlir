// RUN: dnnc-opt %s -p 'dnn-fuse-quantized{vnni=yes round-first=false}' --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p 'dnn-fuse-quantized{vnni=yes round-first=false}' --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: dnnc-opt %s -p 'dnn-fuse-quantized{vnni=yes}' --split-input-file --remarks 2>&1 | filecheck %s --check-prefix=ROUND
// RUN: dnnc-opt %s -p 'dnn-fuse-quantized{vnni=no}' --split-input-file --remarks 2>&1 | filecheck %s --check-prefix=NOVNNI

/// ONNX QDQ: DQ(x), DQ(w per output channel), DQ(int32 bias), Conv, Relu, Q. One qconv2d
/// stays, the relu a post-op; the bias's dequantize stays for dnn-fold-constants.
// CHECK-LABEL: func.func @qdq_conv_relu
// CHECK:         %[[B:.*]] = dnn.dequantize %bq, %bs, %bz
// CHECK-NEXT:    %[[Y:.*]] = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %ys, %yz, %[[B]] {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, post_ops = [#dnn.eltwise<relu>]} : (tensor<1x4x6x6xui8>, tensor<8x4x3x3xi8>, tensor<f32>, tensor<ui8>, tensor<8xf32>, tensor<f32>, tensor<ui8>, tensor<8xf32>) -> tensor<1x8x6x6xui8>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     dnn.conv2d
// REMARK: dnn-fuse-quantized.mlir:[[# @LINE + 26]]:3: remark: [dnn-fuse-quantized] fused into one int8 convolution with relu
/// Without VNNI too: a u8 source and weights within 7 bits (3) are exact there. (The
/// remarks come first: those of @shared_source and @wide_weights, which are not fused.)
// NOVNNI-COUNT-2: remark: [dnn-fuse-quantized] not fused: this CPU has no VNNI and the source is s8 (oneDNN would halve the weights: inexact)
// NOVNNI-NEXT: remark: [dnn-fuse-quantized] not fused: this CPU has no VNNI and a weight is 100, beyond 7 bits (vpmaddubsw's pair sums would saturate; ONNX Runtime's reduce_range quantizes weights to 7 bits)
// NOVNNI-LABEL: func.func @qdq_conv_relu
// NOVNNI:         dnn.qconv2d %xq, %wq
/// The last rule leaves a zero point of 0 alone (oneDNN then runs without one). (Its one
/// remark comes first: @negative_round_first_scale_not_constant's.)
// ROUND: remark: [dnn-fuse-quantized] zero point added before rounding (oneDNN's): the result's scale is not a constant
// ROUND-LABEL: func.func @qdq_conv_relu
// ROUND:         dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %ys, %yz, %{{.*}} {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, post_ops = [#dnn.eltwise<relu>]}
func.func @qdq_conv_relu(%xq: tensor<1x4x6x6xui8>) -> tensor<1x8x6x6xui8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<8x4x3x3xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %wz = dnn.constant dense<0> : tensor<8xi8>
  %bq = dnn.constant dense<7> : tensor<8xi32>
  %bs = dnn.constant dense<0.0002> : tensor<8xf32>
  %bz = dnn.constant dense<0> : tensor<8xi32>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz {axis = 0 : i64} : (tensor<8x4x3x3xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x4x3x3xf32>
  %b = dnn.dequantize %bq, %bs, %bz {axis = 0 : i64} : (tensor<8xi32>, tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32>
  %c = dnn.conv2d %x, %w, %b {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  %r = dnn.eltwise relu %c : tensor<1x8x6x6xf32>
  %y = dnn.quantize %r, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y : tensor<1x8x6x6xui8>
}

// -----

/// Per-tensor weights, no bias, an s8 result; a source dequantize read by two convolutions
/// fuses into both (it goes with its last reader).
/// Without VNNI an s8 source is not fused (oneDNN would halve the weights).
// CHECK-LABEL: func.func @shared_source
// NOVNNI-LABEL: func.func @shared_source
// NOVNNI-NOT:     dnn.qconv2d
// CHECK-NOT:     dnn.dequantize
// CHECK:         dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %ys, %yz :
// CHECK:         dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %ys, %yz :
// CHECK-NOT:     dnn.dequantize
// REMARK-COUNT-2: remark: [dnn-fuse-quantized] fused into one int8 convolution{{$}}
func.func @shared_source(%xq: tensor<1x4x6x6xi8>) -> (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<-3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<1> : tensor<i8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c1 = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %y1 = dnn.quantize %c1, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  %c2 = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %y2 = dnn.quantize %c2, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  func.return %y1, %y2 : tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>
}

// -----

/// With VNNI any s8 weights fuse; without it, weights beyond 7 bits (100) would saturate
/// vpmaddubsw's pair sums: not fused there, with the largest weight in the remark.
// CHECK-LABEL: func.func @wide_weights
// CHECK:         dnn.qconv2d %xq, %wq
// REMARK: remark: [dnn-fuse-quantized] fused into one int8 convolution{{$}}
// NOVNNI-LABEL: func.func @wide_weights
// NOVNNI-NOT:     dnn.qconv2d
func.func @wide_weights(%xq: tensor<1x4x6x6xui8>) -> tensor<1x8x6x6xui8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<ui8>
  %wq = dnn.constant dense<[[[[100]], [[-3]], [[5]], [[-64]]], [[[1]], [[2]], [[3]], [[4]]], [[[1]], [[2]], [[3]], [[4]]], [[[1]], [[2]], [[3]], [[4]]], [[[1]], [[2]], [[3]], [[4]]], [[[1]], [[2]], [[3]], [[4]]], [[[1]], [[2]], [[3]], [[4]]], [[[1]], [[2]], [[3]], [[4]]]]> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %c, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y : tensor<1x8x6x6xui8>
}

// -----

/// Must not fire: the source is quantized per channel (oneDNN takes one src scale).
// CHECK-LABEL: func.func @per_axis_source
// NOVNNI-LABEL: func.func @per_axis_source
// CHECK:         dnn.conv2d
// CHECK-NOT:     dnn.qconv2d
// REMARK: remark: [dnn-fuse-quantized] not fused: the source is quantized per axis
func.func @per_axis_source(%xq: tensor<1x4x6x6xui8>, %xs: tensor<4xf32>, %xz: tensor<4xui8>) -> tensor<1x8x6x6xui8> {
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz {axis = 1 : i64} : (tensor<1x4x6x6xui8>, tensor<4xf32>, tensor<4xui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %c, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y : tensor<1x8x6x6xui8>
}

// -----

/// Must not fire: the convolution's f32 result has another reader, which needs it.
// CHECK-LABEL: func.func @result_read_twice
// CHECK:         dnn.conv2d
// CHECK-NOT:     dnn.qconv2d
// REMARK: remark: [dnn-fuse-quantized] not fused: the conv2d's f32 result has another use, which would be lost
func.func @result_read_twice(%xq: tensor<1x4x6x6xui8>) -> (tensor<1x8x6x6xui8>, tensor<1x8x6x6xf32>) {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %c, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y, %c : tensor<1x8x6x6xui8>, tensor<1x8x6x6xf32>
}

// -----

/// Must not fire: the weights are computed (a function argument), not a constant to pack.
// CHECK-LABEL: func.func @weights_not_constant
// CHECK:         dnn.conv2d
// CHECK-NOT:     dnn.qconv2d
// REMARK: remark: [dnn-fuse-quantized] not fused: the weights are not a constant
func.func @weights_not_constant(%xq: tensor<1x4x6x6xui8>, %wq: tensor<8x4x1x1xi8>) -> tensor<1x8x6x6xui8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %c, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y : tensor<1x8x6x6xui8>
}

// -----

/// Must not fire: asymmetric weights (oneDNN's int8 weights have no zero point).
// CHECK-LABEL: func.func @weights_zero_point
// CHECK:         dnn.conv2d
// CHECK-NOT:     dnn.qconv2d
// REMARK: remark: [dnn-fuse-quantized] not fused: the weights' zero point is not a constant 0
func.func @weights_zero_point(%xq: tensor<1x4x6x6xui8>) -> tensor<1x8x6x6xui8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<2> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %c, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y : tensor<1x8x6x6xui8>
}

// -----

/// Must not fire: a sigmoid between the convolution and the quantize is no post-op here.
// CHECK-LABEL: func.func @sigmoid_between
// CHECK:         dnn.conv2d
// CHECK-NOT:     dnn.qconv2d
// REMARK: remark: [dnn-fuse-quantized] not fused: a sigmoid is between conv2d and quantize
func.func @sigmoid_between(%xq: tensor<1x4x6x6xui8>) -> tensor<1x8x6x6xui8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<0> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %s = dnn.eltwise sigmoid %c : tensor<1x8x6x6xf32>
  %y = dnn.quantize %s, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y : tensor<1x8x6x6xui8>
}

// -----

/// A ResNet block's residual add: Q(relu(DQ(qconv2d) + DQ(%rq))) becomes the qconv2d with the
/// result's scale and zero point, %rq as a sum post-op's argument (its scale and zero point),
/// after the convolution's own quantize and dequantize as eltwise post-ops (1/0.25 = 4;
/// clip to [-128 + 8, 127 + 8]); the relu after the sum.
// CHECK-LABEL: func.func @residual_add_relu
// CHECK-NEXT:    %xs = dnn.constant
// CHECK:         %[[Y:.*]] = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %ys, %yz post_args(%rq : tensor<1x8x6x6xi8>) {post_ops = [#dnn.eltwise<linear, 4.0>, #dnn.eltwise<round>, #dnn.eltwise<clip, -120.0, 135.0>, #dnn.eltwise<linear, 0.25>, #dnn.sum<0.125, 3>, #dnn.eltwise<relu>]} : (tensor<1x4x6x6xi8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>, tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
// CHECK-NEXT:    func.return %[[Y]]
// CHECK-NOT:     dnn.binary
// REMARK: remark: [dnn-fuse-quantized] fused the residual add into the int8 convolution (a sum post-op)
/// With the last rule the result's zero point -128 follows the sum, the relu, the scale (1/0.5)
/// and the rounding.
// ROUND-LABEL: func.func @residual_add_relu
// ROUND:         dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %{{.*}}, %{{.*}} post_args(%rq : tensor<1x8x6x6xi8>) {post_ops = [{{.*}}, #dnn.sum<0.125, 3>, #dnn.eltwise<relu>, #dnn.eltwise<linear, 2.0>, #dnn.eltwise<round>, #dnn.eltwise<linear, 1.0, -128.0>]}
func.func @residual_add_relu(%xq: tensor<1x4x6x6xi8>, %rq: tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %as = dnn.constant dense<0.25> : tensor<f32>
  %az = dnn.constant dense<-8> : tensor<i8>
  %ys = dnn.constant dense<0.5> : tensor<f32>
  %yz = dnn.constant dense<-128> : tensor<i8>
  %rs = dnn.constant dense<0.125> : tensor<f32>
  %rz = dnn.constant dense<3> : tensor<i8>
  %a = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %as, %az : (tensor<1x4x6x6xi8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>, tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  %af = dnn.dequantize %a, %as, %az : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %rf = dnn.dequantize %rq, %rs, %rz : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %s = dnn.binary add %rf, %af : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %e = dnn.eltwise relu %s : tensor<1x8x6x6xf32>
  %y = dnn.quantize %e, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  func.return %y : tensor<1x8x6x6xi8>
}

// -----

/// Both addends are int8 convolutions (a downsampling block): the later one takes the
/// earlier one's result as its residual.
// CHECK-LABEL: func.func @residual_of_two_convolutions
// CHECK:         %[[D:.*]] = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %as, %az :
// CHECK-NEXT:    %[[Y:.*]] = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %ys, %yz post_args(%[[D]] : tensor<1x8x6x6xi8>) {post_ops = [{{.*}}, #dnn.sum<0.25, -8>]}
// CHECK-NEXT:    func.return %[[Y]]
// REMARK: remark: [dnn-fuse-quantized] fused the residual add into the int8 convolution (a sum post-op)
func.func @residual_of_two_convolutions(%xq: tensor<1x4x6x6xi8>) -> tensor<1x8x6x6xi8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %as = dnn.constant dense<0.25> : tensor<f32>
  %az = dnn.constant dense<-8> : tensor<i8>
  %ys = dnn.constant dense<0.5> : tensor<f32>
  %yz = dnn.constant dense<-128> : tensor<i8>
  %d = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %as, %az : (tensor<1x4x6x6xi8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>, tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  %a = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %as, %az : (tensor<1x4x6x6xi8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>, tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  %df = dnn.dequantize %d, %as, %az : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %af = dnn.dequantize %a, %as, %az : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %s = dnn.binary add %df, %af : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %s, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  func.return %y : tensor<1x8x6x6xi8>
}

// -----

/// Must not fire: the residual's scale is computed at run time, and oneDNN's sum post-op
/// takes its scale when the primitive is created.
// CHECK-LABEL: func.func @negative_residual_scale_not_constant
// CHECK:         dnn.binary add
// REMARK: remark: [dnn-fuse-quantized] not fused: the residual's scale is not a constant
func.func @negative_residual_scale_not_constant(%xq: tensor<1x4x6x6xi8>, %rq: tensor<1x8x6x6xi8>, %rs: tensor<f32>) -> tensor<1x8x6x6xi8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %as = dnn.constant dense<0.25> : tensor<f32>
  %az = dnn.constant dense<-8> : tensor<i8>
  %ys = dnn.constant dense<0.5> : tensor<f32>
  %yz = dnn.constant dense<-128> : tensor<i8>
  %rz = dnn.constant dense<3> : tensor<i8>
  %a = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %as, %az : (tensor<1x4x6x6xi8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>, tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  %af = dnn.dequantize %a, %as, %az : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %rf = dnn.dequantize %rq, %rs, %rz : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %s = dnn.binary add %af, %rf : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %s, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  func.return %y : tensor<1x8x6x6xi8>
}

// -----

/// Must not fire: a u8 residual under an s8 result (oneDNN's sum reads the residual from
/// the result's buffer, as the result's type).
// CHECK-LABEL: func.func @negative_residual_other_type
// CHECK:         dnn.binary add
// REMARK: remark: [dnn-fuse-quantized] not fused: the residual's type tensor<1x8x6x6xui8> is not the result's tensor<1x8x6x6xi8>
func.func @negative_residual_other_type(%xq: tensor<1x4x6x6xi8>, %rq: tensor<1x8x6x6xui8>) -> tensor<1x8x6x6xi8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %as = dnn.constant dense<0.25> : tensor<f32>
  %az = dnn.constant dense<-8> : tensor<i8>
  %ys = dnn.constant dense<0.5> : tensor<f32>
  %yz = dnn.constant dense<-128> : tensor<i8>
  %rs = dnn.constant dense<0.125> : tensor<f32>
  %rz = dnn.constant dense<3> : tensor<ui8>
  %a = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %as, %az : (tensor<1x4x6x6xi8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>, tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  %af = dnn.dequantize %a, %as, %az : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %rf = dnn.dequantize %rq, %rs, %rz : (tensor<1x8x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xf32>
  %s = dnn.binary add %af, %rf : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %s, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  func.return %y : tensor<1x8x6x6xi8>
}

// -----

/// Must not fire: the convolution's dequantized result is also returned.
// CHECK-LABEL: func.func @negative_residual_conv_result_read_twice
// CHECK:         dnn.binary add
// REMARK: remark: [dnn-fuse-quantized] not fused: the int8 convolution's dequantized result has another use, which would be lost
func.func @negative_residual_conv_result_read_twice(%xq: tensor<1x4x6x6xi8>, %rq: tensor<1x8x6x6xi8>) -> (tensor<1x8x6x6xi8>, tensor<1x8x6x6xf32>) {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<0> : tensor<i8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %as = dnn.constant dense<0.25> : tensor<f32>
  %az = dnn.constant dense<-8> : tensor<i8>
  %ys = dnn.constant dense<0.5> : tensor<f32>
  %yz = dnn.constant dense<-128> : tensor<i8>
  %rs = dnn.constant dense<0.125> : tensor<f32>
  %rz = dnn.constant dense<3> : tensor<i8>
  %a = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %as, %az : (tensor<1x4x6x6xi8>, tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>, tensor<8xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  %af = dnn.dequantize %a, %as, %az : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %rf = dnn.dequantize %rq, %rs, %rz : (tensor<1x8x6x6xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xf32>
  %s = dnn.binary add %af, %rf : (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %s, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x6x6xi8>
  func.return %y, %af : tensor<1x8x6x6xi8>, tensor<1x8x6x6xf32>
}

// -----

/// The zero point after the rounding (the last rule): the result's zero point 3 moves into
/// the post-ops after the scale (1/0.05 = 20) and the rounding; the op keeps scale 1 and
/// zero point 0.
// ROUND-LABEL: func.func @round_first_odd_zero_point
// ROUND:         %[[ONE:.*]] = dnn.constant dense<1.000000e+00> : tensor<f32>
// ROUND-NEXT:    %[[NOUGHT:.*]] = dnn.constant dense<0> : tensor<ui8>
// ROUND-NEXT:    %y = dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %[[ONE]], %[[NOUGHT]] {post_ops = [#dnn.eltwise<relu>, #dnn.eltwise<linear, 19.99999970197678>, #dnn.eltwise<round>, #dnn.eltwise<linear, 1.0, 3.0>]}
// REMARK: remark: [dnn-fuse-quantized] fused into one int8 convolution with relu
func.func @round_first_odd_zero_point(%xq: tensor<1x4x6x6xui8>) -> tensor<1x8x6x6xui8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<8xf32>
  %wz = dnn.constant dense<0> : tensor<8xi8>
  %ys = dnn.constant dense<0.05> : tensor<f32>
  %yz = dnn.constant dense<3> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz {axis = 0 : i64} : (tensor<8x4x1x1xi8>, tensor<8xf32>, tensor<8xi8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %r = dnn.eltwise relu %c : tensor<1x8x6x6xf32>
  %y = dnn.quantize %r, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y : tensor<1x8x6x6xui8>
}

// -----

/// Must not fire: the result's scale is known at run time only (the post-op needs a
/// number); oneDNN adds the zero point, with a remark.
// ROUND-LABEL: func.func @negative_round_first_scale_not_constant
// ROUND:         dnn.qconv2d %xq, %wq, %xs, %xz, %ws, %ys, %yz :
// REMARK: remark: [dnn-fuse-quantized] fused into one int8 convolution{{$}}
func.func @negative_round_first_scale_not_constant(%xq: tensor<1x4x6x6xui8>, %ys: tensor<f32>) -> tensor<1x8x6x6xui8> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %yz = dnn.constant dense<3> : tensor<ui8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.quantize %c, %ys, %yz : (tensor<1x8x6x6xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x6x6xui8>
  func.return %y : tensor<1x8x6x6xui8>
}

// -----

/// Must not fire: no quantize after the convolution (its result is wanted in f32); silent
/// (the last case: no remark after the previous one).
// CHECK-LABEL: func.func @missing_quantize
// CHECK:         dnn.dequantize %xq
// CHECK:         dnn.conv2d
// CHECK-NOT:     dnn.qconv2d
// REMARK-NOT: remark: [dnn-fuse-quantized]
func.func @missing_quantize(%xq: tensor<1x4x6x6xui8>) -> tensor<1x8x6x6xf32> {
  %xs = dnn.constant dense<0.02> : tensor<f32>
  %xz = dnn.constant dense<128> : tensor<ui8>
  %wq = dnn.constant dense<3> : tensor<8x4x1x1xi8>
  %ws = dnn.constant dense<0.01> : tensor<f32>
  %wz = dnn.constant dense<0> : tensor<i8>
  %x = dnn.dequantize %xq, %xs, %xz : (tensor<1x4x6x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x4x6x6xf32>
  %w = dnn.dequantize %wq, %ws, %wz : (tensor<8x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<8x4x1x1xf32>
  %c = dnn.conv2d %x, %w : (tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x6x6xf32>
  func.return %c : tensor<1x8x6x6xf32>
}
