// REQUIRES: libdnnl
// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-layouts' --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-layouts{strategy=greedy}' --split-input-file | filecheck %s --check-prefix=GREEDY
// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-layouts{strategy=plain}' --split-input-file | filecheck %s --check-prefix=PLAIN
// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-layouts' --split-input-file --remarks=dnn-assign-layouts 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: not dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-layouts{strategy=best}' --split-input-file 2>&1 | filecheck %s --check-prefix=ERROR
// RUN: not dnnc-opt %s -p 'dnn-assign-layouts{cost=fastest}' 2>&1 | filecheck %s --check-prefix=COST-ERROR
// RUN: dnnc-opt %s -p 'dnn-select-kernels,dnn-assign-layouts{cost=measured}' --split-input-file --remarks=dnn-assign-layouts 2>&1 >/dev/null | filecheck %s --check-prefix=MEASURED

/// A bad option fails when the pipeline is parsed: once, naming the valid values, where a
/// check inside the pass would fail once per piece of input, after dnn-select-kernels ran.
// ERROR: error: invalid options for pass 'dnn-assign-layouts': strategy=best is not one of global, greedy, plain
// ERROR-NOT: error
// COST-ERROR: error: invalid options for pass 'dnn-assign-layouts': cost=fastest is not one of auto, measured, bytes
/// The measured model's choices depend on this CPU's timings (test_measured_layouts.py
/// checks them against set times); here only that it ran and what it reports.
// MEASURED: remark: [dnn-assign-layouts] global: {{[0-9]+}} run-time reorders moving {{[0-9]+}} bytes; measured: kernels {{[0-9]+}} us, reorders {{[0-9]+}} us
// PLAIN-NOT: dnn.operand_layouts

/// conv, relu, conv: the relu runs in the convolutions' layout (whatever oneDNN picks on this
/// CPU), the weights in oneDNN's packing; greedy leaves the relu plain.
// CHECK-LABEL: func.func @conv_relu_conv
// CHECK:         dnn.conv2d {{.*}}dnn.operand_layouts = [#dnn.layout<[[L:[A-Za-z0-9]+]]>, #dnn.layout<{{[A-Za-z0-9]+}}>]
// CHECK:         dnn.eltwise relu {{.*}}dnn.operand_layouts = [#dnn.layout<[[L]]>]
// CHECK:         dnn.conv2d {{.*}}dnn.operand_layouts = [#dnn.layout<[[L]]>,
// GREEDY-LABEL: func.func @conv_relu_conv
// GREEDY:         dnn.conv2d {{.*}}dnn.operand_layouts = [#dnn.layout<[[L:[A-Za-z0-9]+]]>,
// GREEDY:         dnn.eltwise relu {{.*}}dnn.operand_layouts = [#dnn.layout<nchw>]
// REMARK: remark: [dnn-assign-layouts] global: 2 run-time reorders moving 24576 bytes (greedy: 57344 bytes)
func.func @conv_relu_conv(%src: tensor<1x16x8x8xf32>) -> tensor<1x32x8x8xf32> {
  %w1 = dnn.weight "w.npz", "w1" : tensor<32x16x3x3xf32>
  %w2 = dnn.weight "w.npz", "w2" : tensor<32x32x3x3xf32>
  %c1 = dnn.conv2d %src, %w1 {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %r = dnn.eltwise relu %c1 : tensor<1x32x8x8xf32>
  %c2 = dnn.conv2d %r, %w2 {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x8x8xf32>
  func.return %c2 : tensor<1x32x8x8xf32>
}

// -----

/// A relu between the argument and the result has nothing to gain from another layout.
// CHECK-LABEL: func.func @negative_no_preference_stays_plain
// CHECK:         dnn.eltwise relu {{.*}}dnn.operand_layouts = [#dnn.layout<nchw>]
// REMARK: remark: [dnn-assign-layouts] global: 0 run-time reorders moving 0 bytes (greedy: 0 bytes)
func.func @negative_no_preference_stays_plain(%src: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %r = dnn.eltwise relu %src : tensor<1x16x8x8xf32>
  func.return %r : tensor<1x16x8x8xf32>
}

// -----

/// layer_norm reads plain only, even after a convolution.
// CHECK-LABEL: func.func @negative_layer_norm_plain
// CHECK:         dnn.layer_norm {{.*}}dnn.operand_layouts = [#dnn.layout<nchw>]
func.func @negative_layer_norm_plain(%src: tensor<1x16x8x8xf32>, %wei: tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %c = dnn.conv2d %src, %wei {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %n = dnn.layer_norm %c : tensor<1x32x8x8xf32>
  func.return %n : tensor<1x32x8x8xf32>
}

// -----

/// top_k runs the reference kernel: plain.
// CHECK-LABEL: func.func @negative_reference_plain
// CHECK:         dnn.top_k {{.*}}dnn.operand_layouts = [#dnn.layout<nchw>]
func.func @negative_reference_plain(%src: tensor<1x16x8x8xf32>, %wei: tensor<32x16x3x3xf32>) -> tensor<1x32x8x3xf32> {
  %c = dnn.conv2d %src, %wei {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32>
  %v, %i = dnn.top_k %c {k = 3 : i64} : (tensor<1x32x8x8xf32>) -> (tensor<1x32x8x3xf32>, tensor<1x32x8x3xi64>)
  func.return %v : tensor<1x32x8x3xf32>
}

// -----

/// matmul: oneDNN prefers plain operands; the bias is read plain.
// CHECK-LABEL: func.func @matmul_plain
// CHECK:         dnn.matmul {{.*}}dnn.operand_layouts = [#dnn.layout<nc>, #dnn.layout<{{.*}}>, #dnn.layout<x>]
func.func @matmul_plain(%lhs: tensor<4x8xf32>, %bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %rhs = dnn.weight "w.npz", "rhs" : tensor<8x16xf32>
  %m = dnn.matmul %lhs, %rhs, %bias : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  func.return %m : tensor<4x16xf32>
}

// -----

/// A convolution on 3 channels (a network's stem): oneDNN's own pick reads nchw and writes
/// nChw16c, which one dnn layout cannot say, and plain runs its gemm fallback (13x slower with
/// a fused clip); its direct kernel in nhwc, the depthwise convolution's layout, wins: the
/// input is reordered once (3 channels) instead of the 32-channel result.
// CHECK-LABEL: func.func @stem_runs_a_direct_kernel
// CHECK:         dnn.conv2d {{.*}}dnn.operand_layouts = [#dnn.layout<nhwc>,
// CHECK:         dnn.conv2d {{.*}}dnn.operand_layouts = [#dnn.layout<nhwc>,
func.func @stem_runs_a_direct_kernel(%x: tensor<1x3x64x64xf32>) -> tensor<1x32x32x32xf32> {
  %w = dnn.weight "w.npz", "stem" : tensor<32x3x3x3xf32>
  %b = dnn.weight "w.npz", "bias" : tensor<32xf32>
  %c = dnn.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, post_ops = [#dnn.eltwise<clip, 0.0, 6.0>]} : (tensor<1x3x64x64xf32>, tensor<32x3x3x3xf32>, tensor<32xf32>) -> tensor<1x32x32x32xf32>
  %dw = dnn.weight "w.npz", "dw" : tensor<32x1x3x3xf32>
  %d = dnn.conv2d %c, %dw {groups = 32 : i64, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x32x32x32xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x32x32xf32>
  func.return %d : tensor<1x32x32x32xf32>
}
