// RUN: rm -rf %t && mkdir -p %t
// RUN: dnnc-opt %s -p dnn-fuse-post-ops --view-graph %t/g.dot -o /dev/null
// RUN: filecheck %s --input-file %t/g.dot
// RUN: dnnc-opt %s -p dnn-fuse-post-ops --view-graph %t/g.svg -o /dev/null
// RUN: filecheck %s --input-file %t/g.svg --check-prefix=SVG
// RUN: not dnnc-opt %s --view-graph %t/missing/g.svg 2>&1 | filecheck %s --check-prefix=ERR

/// One box per computing op (the weight is folded into the conv's box), with the decisions of
/// the passes that ran: here the relu fused into the convolution as a post-op.
// CHECK:     digraph dnnc {
// CHECK:     n0 [label="%x\n1x8x6x6 f32", style=rounded];
// CHECK:     n1 [label="%y = dnn.conv2d\n1x8x6x6 f32\npost-ops eltwise<relu>\nweight 8x8x3x3 f32"];
// CHECK:     n2 [label="return\n1x8x6x6 f32", style=rounded];
// CHECK:     n0 -> n1;
// CHECK:     n1 -> n2;
// CHECK-NOT: dnn.eltwise

// SVG:       <svg xmlns="http://www.w3.org/2000/svg"
// SVG:       post-ops eltwise&lt;relu&gt;
// SVG:       </svg>

// ERR:       error: could not write the picture '{{.*}}missing/g.svg'
func.func @f(%x: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %w = dnn.constant dense<0.5> : tensor<8x8x3x3xf32>
  %c = dnn.conv2d %x, %w {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  %y = dnn.eltwise relu %c : tensor<1x8x6x6xf32>
  func.return %y : tensor<1x8x6x6xf32>
}
