// REQUIRES: libdnnl
// RUN: dnnc-opt %s -p dnn-remove-redundant-reorders --split-input-file | filecheck %s

/// nhwc -> plain, relu, plain -> nhwc ==> relu in nhwc (the reorders cancel through it).
// CHECK-LABEL: func.func @fold_reorder_into_producer
// CHECK-NOT:     dnn.reorder
// CHECK:         %[[R:.*]] = dnn.eltwise relu %src {dnn.kernel = #dnn.kernel<onednn, f32>} : tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
// CHECK:         func.return %[[R]]
func.func @fold_reorder_into_producer(%src: tensor<1x32x8x8xf32, #dnn.layout<nhwc>>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>> {
  %a = dnn.reorder %src : (tensor<1x32x8x8xf32, #dnn.layout<nhwc>>) -> tensor<1x32x8x8xf32>
  %r = dnn.eltwise relu %a {dnn.kernel = #dnn.kernel<onednn, f32>} : tensor<1x32x8x8xf32>
  %b = dnn.reorder %r : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
  func.return %b : tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
}

// -----

/// relu then pool between the reorders: the reorder moves up through both and cancels.
// CHECK-LABEL: func.func @fold_reorder_into_producer_chain
// CHECK-NOT:     dnn.reorder
// CHECK:         dnn.pool max {{.*}} -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
func.func @fold_reorder_into_producer_chain(%src: tensor<1x32x8x8xf32, #dnn.layout<nhwc>>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>> {
  %a = dnn.reorder %src : (tensor<1x32x8x8xf32, #dnn.layout<nhwc>>) -> tensor<1x32x8x8xf32>
  %r = dnn.eltwise relu %a : tensor<1x32x8x8xf32>
  %p = dnn.pool max %r {kernel = array<i64: 3, 3>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %b = dnn.reorder %p : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
  func.return %b : tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
}

// -----

/// The relu result is also returned plain: the relu must keep writing plain.
// CHECK-LABEL: func.func @negative_producer_other_reader
// CHECK:         dnn.eltwise relu {{.*}} : tensor<1x32x8x8xf32>
// CHECK:         dnn.reorder %r
func.func @negative_producer_other_reader(%src: tensor<1x32x8x8xf32, #dnn.layout<nhwc>>) -> (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32, #dnn.layout<nhwc>>) {
  %a = dnn.reorder %src : (tensor<1x32x8x8xf32, #dnn.layout<nhwc>>) -> tensor<1x32x8x8xf32>
  %r = dnn.eltwise relu %a : tensor<1x32x8x8xf32>
  %b = dnn.reorder %r : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
  func.return %r, %b : tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
}

// -----

/// Moving the reorder above a stride-2 pool would reorder 4x the bytes: it stays below.
// CHECK-LABEL: func.func @negative_producer_strided_pool
// CHECK:         %[[P:.*]] = dnn.pool max %src {{.*}} -> tensor<1x32x4x4xf32>
// CHECK:         dnn.reorder %[[P]]
func.func @negative_producer_strided_pool(%src: tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32, #dnn.layout<nhwc>> {
  %p = dnn.pool max %src {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x32x8x8xf32>) -> tensor<1x32x4x4xf32>
  %b = dnn.reorder %p : (tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32, #dnn.layout<nhwc>>
  func.return %b : tensor<1x32x4x4xf32, #dnn.layout<nhwc>>
}

// -----

/// oneDNN's binary reads a plain right operand next to an nhwc left one with a jit kernel:
/// the reorder of the right operand is dropped.
// CHECK-LABEL: func.func @fold_reorder_into_consumer
// CHECK-NOT:     dnn.reorder
// CHECK:         dnn.binary add %lhs, %rhs : (tensor<1x32x8x8xf32, #dnn.layout<nhwc>>, tensor<1x32x8x8xf32>)
func.func @fold_reorder_into_consumer(%lhs: tensor<1x32x8x8xf32, #dnn.layout<nhwc>>, %rhs: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>> {
  %r = dnn.reorder %rhs : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
  %s = dnn.binary add %lhs, %r : (tensor<1x32x8x8xf32, #dnn.layout<nhwc>>, tensor<1x32x8x8xf32, #dnn.layout<nhwc>>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
  func.return %s : tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
}

// -----

/// nChw16c next to plain would run oneDNN's reference binary: the reorder stays.
// CHECK-LABEL: func.func @negative_consumer_reference_implementation
// CHECK:         %[[R:.*]] = dnn.reorder %rhs
// CHECK:         dnn.binary add %lhs, %[[R]]
func.func @negative_consumer_reference_implementation(%lhs: tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>, %rhs: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nChw16c>> {
  %r = dnn.reorder %rhs : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>
  %s = dnn.binary add %lhs, %r : (tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>, tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>) -> tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>
  func.return %s : tensor<1x32x8x8xf32, #dnn.layout<nChw16c>>
}

// -----

/// The reordered value is the first operand, whose layout the op writes: not folded.
// CHECK-LABEL: func.func @negative_consumer_first_operand
// CHECK:         %[[R:.*]] = dnn.reorder %src
// CHECK:         dnn.eltwise relu %[[R]]
func.func @negative_consumer_first_operand(%src: tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>> {
  %r = dnn.reorder %src : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
  %e = dnn.eltwise relu %r : tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
  func.return %e : tensor<1x32x8x8xf32, #dnn.layout<nhwc>>
}
