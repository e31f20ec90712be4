// REQUIRES: libdnnl
// RUN: %python -m dnnc.tools.run %s --check --report-memory | filecheck %s
// RUN: %python -m dnnc.tools.run %s --pipeline "" --check | filecheck %s --check-prefix=NOOPT

/// A conv + relu branch and a softmax branch of one input, both returned, with
/// seeded random inputs: every output agrees with the reference interpreter.
// CHECK: @conv_softmax: {{[0-9]+}} steps
// CHECK-NEXT: result0: float32[1, 8, 4, 4] min
// CHECK-NEXT: result1: float32[1, 4, 4, 4] min
// CHECK: check result0: max abs error {{.*}}: ok
// CHECK-NEXT: check result1: max abs error {{.*}}: ok
// CHECK-NEXT: memory: planned {{[0-9]+}} bytes, lower bound {{[0-9]+}}
// NOOPT: check result0: {{.*}}: ok
// NOOPT: check result1: {{.*}}: ok
// CHECK-NOT: FAIL
func.func @conv_softmax(%x: tensor<1x4x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x4x4x4xf32>) {
  %w = dnn.constant dense<0.25> : tensor<8x4x3x3xf32>
  %c = dnn.conv2d %x, %w {pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  %r = dnn.eltwise relu %c : tensor<1x8x4x4xf32>
  %s = dnn.softmax %x {axis = 1 : i64} : tensor<1x4x4x4xf32>
  func.return %r, %s : tensor<1x8x4x4xf32>, tensor<1x4x4x4xf32>
}
