/// examples/residual_block.mlir keeps parsing and verifying, and its ops keep their order.
// RUN: dnnc-opt %S/../../examples/residual_block.mlir | filecheck %s

// CHECK-LABEL: func.func @residual_block
// CHECK-COUNT-12: dnn.weight "residual_block.npz"
// CHECK:         %c1 = dnn.conv2d %x, %conv1_wei, %conv1_bias
// CHECK:         %b1 = dnn.batch_norm %c1
// CHECK:         %r1 = dnn.eltwise relu %b1
// CHECK:         %c2 = dnn.conv2d %r1, %conv2_wei, %conv2_bias
// CHECK:         %b2 = dnn.batch_norm %c2
// CHECK:         %sum = dnn.binary add %b2, %x
// CHECK:         %r2 = dnn.eltwise relu %sum
// CHECK:         %y = dnn.pool max %r2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>
