// RUN: dnnc-opt %s -p dnn-share-dynamic-quantize --split-input-file | filecheck %s

/// quantize_dynamic's attention: q, k and v each reshape and quantize the same hidden
/// states. The first dynamic quantize serves all three (its scale and zero point too); the
/// other reshape goes with its quantize.
// CHECK-LABEL: func.func @share_dynamic_quantize
// CHECK-NEXT:    %r = dnn.reshape %x : (tensor<1x16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT:    %q, %s, %z = dnn.dynamic_quantize %r
// CHECK-NEXT:    func.return %q, %s, %z, %q, %s, %z, %q :
func.func @share_dynamic_quantize(%x: tensor<1x16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>, tensor<16x64xui8>, tensor<f32>, tensor<ui8>, tensor<16x64xui8>) {
  %r = dnn.reshape %x : (tensor<1x16x64xf32>) -> tensor<16x64xf32>
  %q, %s, %z = dnn.dynamic_quantize %r : (tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>)
  %r2 = dnn.reshape %x : (tensor<1x16x64xf32>) -> tensor<16x64xf32>
  %q2, %s2, %z2 = dnn.dynamic_quantize %r2 : (tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>)
  %q3, %s3, %z3 = dnn.dynamic_quantize %r : (tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>)
  func.return %q, %s, %z, %q2, %s2, %z2, %q3 : tensor<16x64xui8>, tensor<f32>, tensor<ui8>, tensor<16x64xui8>, tensor<f32>, tensor<ui8>, tensor<16x64xui8>
}

// -----

/// A value quantized directly, then through a reshape to its own type: the first serves.
/// A reshape with another reader stays.
// CHECK-LABEL: func.func @share_dynamic_quantize_identity_reshape
// CHECK-NEXT:    %q, %s, %z = dnn.dynamic_quantize %x
// CHECK-NEXT:    %r = dnn.reshape %x
// CHECK-NEXT:    func.return %q, %q, %r :
func.func @share_dynamic_quantize_identity_reshape(%x: tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<16x64xui8>, tensor<16x64xf32>) {
  %q, %s, %z = dnn.dynamic_quantize %x : (tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>)
  %r = dnn.reshape %x : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %q2, %s2, %z2 = dnn.dynamic_quantize %r : (tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>)
  func.return %q, %q2, %r : tensor<16x64xui8>, tensor<16x64xui8>, tensor<16x64xf32>
}

// -----

/// The same value quantized directly and through a reshape to another shape: the same
/// elements, yet integers in another shape. Both stay.
// CHECK-LABEL: func.func @negative_share_dynamic_quantize_other_shape
// CHECK-NEXT:    dnn.dynamic_quantize %x
// CHECK-NEXT:    %r = dnn.reshape %x
// CHECK-NEXT:    dnn.dynamic_quantize %r
func.func @negative_share_dynamic_quantize_other_shape(%x: tensor<1x16x64xf32>) -> (tensor<1x16x64xui8>, tensor<16x64xui8>) {
  %q, %s, %z = dnn.dynamic_quantize %x : (tensor<1x16x64xf32>) -> (tensor<1x16x64xui8>, tensor<f32>, tensor<ui8>)
  %r = dnn.reshape %x : (tensor<1x16x64xf32>) -> tensor<16x64xf32>
  %q2, %s2, %z2 = dnn.dynamic_quantize %r : (tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>)
  func.return %q, %q2 : tensor<1x16x64xui8>, tensor<16x64xui8>
}

// -----

/// Two values of one type (a layer's input and its attention's output): each its own
/// range, each its own quantize.
// CHECK-LABEL: func.func @negative_share_dynamic_quantize_other_value
// CHECK-NEXT:    dnn.dynamic_quantize %x
// CHECK-NEXT:    dnn.dynamic_quantize %y
func.func @negative_share_dynamic_quantize_other_value(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<16x64xui8>) {
  %q, %s, %z = dnn.dynamic_quantize %x : (tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>)
  %q2, %s2, %z2 = dnn.dynamic_quantize %y : (tensor<16x64xf32>) -> (tensor<16x64xui8>, tensor<f32>, tensor<ui8>)
  func.return %q, %q2 : tensor<16x64xui8>, tensor<16x64xui8>
}
