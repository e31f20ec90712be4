/// The type rules every dnn op shares: element types, layout encodings, and results that keep
/// the first operand's element type and layout. Also malformed dnn attributes.
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=NOMODULE
// NOMODULE-NOT: builtin.module

/// f64 is not a dnn element type.
// CHECK: src has element type f64, expected one of f32, bf16, f16, i8, ui8, i32, i64, i1
func.func @negative_eltwise_f64(%src: tensor<4xf64>) -> tensor<4xf64> {
  %y = dnn.eltwise relu %src : tensor<4xf64>
  func.return %y : tensor<4xf64>
}

// -----

/// Nor is i16 (ONNX's int16): no oneDNN primitive and no reference kernel computes on it.
// CHECK: src has element type i16, expected one of f32, bf16, f16, i8, ui8, i32, i64, i1
func.func @negative_eltwise_i16(%src: tensor<4xi16>) -> tensor<4xi16> {
  %y = dnn.eltwise abs %src : tensor<4xi16>
  func.return %y : tensor<4xi16>
}

// -----

/// A tensor encoding must be a #dnn.layout.
// CHECK: src has encoding "nchw", expected a #dnn.layout or none
func.func @negative_eltwise_string_encoding(%src: tensor<1x2x3x4xf32, "nchw">) -> tensor<1x2x3x4xf32, "nchw"> {
  %y = dnn.eltwise relu %src : tensor<1x2x3x4xf32, "nchw">
  func.return %y : tensor<1x2x3x4xf32, "nchw">
}

// -----

/// nChw16c describes 4-D tensors.
// CHECK: src layout nChw16c is for rank 4 but the tensor has rank 2
func.func @negative_eltwise_layout_rank(%src: tensor<2x16xf32, #dnn.layout<nChw16c>>) -> tensor<2x16xf32, #dnn.layout<nChw16c>> {
  %y = dnn.eltwise relu %src : tensor<2x16xf32, #dnn.layout<nChw16c>>
  func.return %y : tensor<2x16xf32, #dnn.layout<nChw16c>>
}

// -----

/// Spelling out the plain layout would make equal types compare unequal.
// CHECK: src: plain layout is implied: drop the encoding #dnn.layout<nchw>
func.func @negative_eltwise_explicit_plain_layout(%src: tensor<1x2x3x4xf32, #dnn.layout<nchw>>) -> tensor<1x2x3x4xf32, #dnn.layout<nchw>> {
  %y = dnn.eltwise relu %src : tensor<1x2x3x4xf32, #dnn.layout<nchw>>
  func.return %y : tensor<1x2x3x4xf32, #dnn.layout<nchw>>
}

// -----

/// Only dnn.cast changes the element type.
// CHECK: result element type f16 must equal the src element type f32: only dnn.cast changes an element type
func.func @negative_conv2d_result_element_type(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf16> {
  %y = dnn.conv2d %src, %wei : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf16>
  func.return %y : tensor<1x4x6x6xf16>
}

// -----

/// Only dnn.reorder changes the layout.
// CHECK: result layout nhwc must equal the src layout nchw: only dnn.reorder changes a layout
func.func @negative_conv2d_result_layout(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32, #dnn.layout<nhwc>> {
  %y = dnn.conv2d %src, %wei : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32, #dnn.layout<nhwc>>
  func.return %y : tensor<1x4x6x6xf32, #dnn.layout<nhwc>>
}

// -----

/// A result whose rank differs from src's has no layout to inherit: it is plain.
// CHECK: result layout cn must be plain: its rank differs from the src rank, and only dnn.reorder changes a layout
func.func @negative_inner_product_result_layout(%src: tensor<2x16x4x4xf32>, %wei: tensor<10x16x4x4xf32>) -> tensor<2x10xf32, #dnn.layout<cn>> {
  %y = dnn.inner_product %src, %wei : (tensor<2x16x4x4xf32>, tensor<10x16x4x4xf32>) -> tensor<2x10xf32, #dnn.layout<cn>>
  func.return %y : tensor<2x10xf32, #dnn.layout<cn>>
}

// -----

/// Ops whose result type is the src type reject a different result type (generic form).
// CHECK: attribute tensor<4xf32> expected from variable 'T', but got tensor<4xf16>
func.func @negative_eltwise_result_type(%src: tensor<4xf32>) -> tensor<4xf16> {
  %y = "dnn.eltwise"(%src) <{alg = #dnn<eltwise_alg relu>}> : (tensor<4xf32>) -> tensor<4xf16>
  func.return %y : tensor<4xf16>
}

// -----

/// The declared result shape must be the inferred one.
// CHECK: result shape 1x4x8x8 does not match the inferred shape 1x4x6x6
func.func @negative_conv2d_result_shape(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %y = dnn.conv2d %src, %wei : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  func.return %y : tensor<1x4x8x8xf32>
}

// -----

/// A layout name that is no oneDNN format tag gives the layout model's message.
// CHECK: 'nChw17q' is not a layout: expected a oneDNN format tag such as nchw, nhwc, nChw8c, nChw16c, OIhw16i16o, or its letter form (abcd, acdb, aBcd16b)
func.func @negative_layout_invalid_tag(%src: tensor<1x16x4x4xf32, #dnn.layout<nChw17q>>) {
  func.return
}

// -----

/// Dimension letters must be a permutation.
// CHECK: 'abbd' is not a layout: its dimension letters must be a permutation of 'abcd'
func.func @negative_layout_repeated_letter(%src: tensor<1x16x4x4xf32, #dnn.layout<abbd>>) {
  func.return
}

// -----

/// The layout parameter is a bare identifier, not a string.
// CHECK: expected a layout: a oneDNN format tag
func.func @negative_layout_string(%src: tensor<1x16x4x4xf32, #dnn.layout<"nchw">>) {
  func.return
}

// -----

/// An eltwise post-op names an eltwise algorithm.
// CHECK: Expected `relu`, `leaky_relu`
func.func @negative_eltwise_post_op_unknown_alg(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei {post_ops = [#dnn.eltwise<relu7>]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// post_ops holds post-op attributes only.
// CHECK: 1 : i64 should be of attribute subclassing `PostOpAttr`
func.func @negative_conv2d_post_ops_not_post_op(%src: tensor<1x3x8x8xf32>, %wei: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %y = dnn.conv2d %src, %wei {post_ops = [1 : i64]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  func.return %y : tensor<1x4x6x6xf32>
}

// -----

/// A kernel type names a library: onednn or reference.
// CHECK: Expected `onednn`, or `reference`.
func.func @negative_kernel_unknown_library(%src: tensor<4xf32>) -> tensor<4xf32> {
  %y = dnn.eltwise relu %src {dnn.kernel = #dnn.kernel<mkl, f32>} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

/// A kernel type's data type is spelled as oneDNN spells it (s8, not i8).
// CHECK: Expected `f32`, `bf16`, `f16`, `s8`, `u8`, `s32`, `s64`, or `boolean`.
func.func @negative_kernel_mlir_type_name(%src: tensor<4xi8>) -> tensor<4xi8> {
  %y = dnn.eltwise relu %src {dnn.kernel = #dnn.kernel<onednn, i8>} : tensor<4xi8>
  func.return %y : tensor<4xi8>
}
