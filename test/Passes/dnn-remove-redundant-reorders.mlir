// RUN: dnnc-opt %s -p dnn-remove-redundant-reorders --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-remove-redundant-reorders --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

/// A cast to the type it already has is dropped.
// CHECK-LABEL: func.func @drop_identity_cast
// CHECK-NOT:     dnn.cast
// CHECK:         func.return %src
func.func @drop_identity_cast(%src: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = dnn.cast %src : (tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

// -----

/// plain -> nhwc -> plain is no reorder at all.
// CHECK-LABEL: func.func @cancel_inverse_reorders
// CHECK-NOT:     dnn.reorder
// CHECK:         func.return %src
// REMARK: remark: [dnn-remove-redundant-reorders] run-time reorders 2 -> 0 (4096 -> 0 bytes moved), casts 0 -> 0
func.func @cancel_inverse_reorders(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %a = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %b = dnn.reorder %a : (tensor<1x16x4x4xf32, #dnn.layout<nhwc>>) -> tensor<1x16x4x4xf32>
  func.return %b : tensor<1x16x4x4xf32>
}

// -----

/// plain -> nhwc -> nChw16c is one reorder plain -> nChw16c.
// CHECK-LABEL: func.func @collapse_reorder_chain
// CHECK:         %[[R:.*]] = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
// CHECK-NOT:     dnn.reorder
// CHECK:         func.return %[[R]]
func.func @collapse_reorder_chain(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>> {
  %a = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %b = dnn.reorder %a : (tensor<1x16x4x4xf32, #dnn.layout<nhwc>>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  func.return %b : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
}

// -----

/// The middle value is still read: the chain is shortened, the first reorder stays.
// CHECK-LABEL: func.func @collapse_reorder_chain_shared
// CHECK:         %[[A:.*]] = dnn.reorder %src {{.*}} #dnn.layout<nhwc>>
// CHECK:         %[[B:.*]] = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
// CHECK:         func.return %[[A]], %[[B]]
func.func @collapse_reorder_chain_shared(%src: tensor<1x16x4x4xf32>) -> (tensor<1x16x4x4xf32, #dnn.layout<nhwc>>, tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>) {
  %a = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %b = dnn.reorder %a : (tensor<1x16x4x4xf32, #dnn.layout<nhwc>>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  func.return %a, %b : tensor<1x16x4x4xf32, #dnn.layout<nhwc>>, tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
}

// -----

/// bf16 -> f32 -> bf16 is exact: both casts go.
// CHECK-LABEL: func.func @cancel_lossless_casts
// CHECK-NOT:     dnn.cast
// CHECK:         func.return %src
func.func @cancel_lossless_casts(%src: tensor<8xbf16>) -> tensor<8xbf16> {
  %a = dnn.cast %src : (tensor<8xbf16>) -> tensor<8xf32>
  %b = dnn.cast %a : (tensor<8xf32>) -> tensor<8xbf16>
  func.return %b : tensor<8xbf16>
}

// -----

/// f32 -> bf16 -> f32 rounds: not the identity, both casts stay.
// CHECK-LABEL: func.func @negative_lossy_casts
// CHECK:         %[[A:.*]] = dnn.cast %src
// CHECK:         %[[B:.*]] = dnn.cast %[[A]]
// CHECK:         func.return %[[B]]
func.func @negative_lossy_casts(%src: tensor<8xf32>) -> tensor<8xf32> {
  %a = dnn.cast %src : (tensor<8xf32>) -> tensor<8xbf16>
  %b = dnn.cast %a : (tensor<8xbf16>) -> tensor<8xf32>
  func.return %b : tensor<8xf32>
}

// -----

/// Reorders around a lossy cast pair are not merged across it.
// CHECK-LABEL: func.func @negative_reorders_across_lossy_cast
// CHECK:         dnn.reorder %src
// CHECK:         dnn.cast
// CHECK:         dnn.cast
// CHECK:         dnn.reorder
// CHECK:         func.return
func.func @negative_reorders_across_lossy_cast(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %a = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %b = dnn.cast %a : (tensor<1x16x4x4xf32, #dnn.layout<nhwc>>) -> tensor<1x16x4x4xbf16, #dnn.layout<nhwc>>
  %c = dnn.cast %b : (tensor<1x16x4x4xbf16, #dnn.layout<nhwc>>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %d = dnn.reorder %c : (tensor<1x16x4x4xf32, #dnn.layout<nhwc>>) -> tensor<1x16x4x4xf32>
  func.return %d : tensor<1x16x4x4xf32>
}

// -----

/// Two reorders of one value to one layout: the second reader reads the first's result.
// CHECK-LABEL: func.func @share_duplicate_transforms
// CHECK:         %[[A:.*]] = dnn.reorder %src
// CHECK-NOT:     dnn.reorder
// CHECK:         dnn.eltwise relu %[[A]]
// CHECK:         dnn.eltwise tanh %[[A]]
func.func @share_duplicate_transforms(%src: tensor<1x16x4x4xf32>) -> (tensor<1x16x4x4xf32, #dnn.layout<nhwc>>, tensor<1x16x4x4xf32, #dnn.layout<nhwc>>) {
  %a = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %b = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %x = dnn.eltwise relu %a : tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %y = dnn.eltwise tanh %b : tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  func.return %x, %y : tensor<1x16x4x4xf32, #dnn.layout<nhwc>>, tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
}

// -----

/// A reordered weight becomes the weight in that layout (packed once by the executor),
/// at the weight's location; it is not counted as a run-time reorder.
// CHECK-LABEL: func.func @fold_reorder_into_weight
// CHECK:         %w = dnn.weight "w.npz", "w" : tensor<16x8x3x3xf32, #dnn.layout<OIhw16i16o>>
// CHECK-NOT:     dnn.reorder
// REMARK: remark: [dnn-remove-redundant-reorders] run-time reorders 0 -> 0 (0 -> 0 bytes moved), casts 0 -> 0
func.func @fold_reorder_into_weight() -> tensor<16x8x3x3xf32, #dnn.layout<OIhw16i16o>> {
  %w = dnn.weight "w.npz", "w" : tensor<16x8x3x3xf32>
  %r = dnn.reorder %w : (tensor<16x8x3x3xf32>) -> tensor<16x8x3x3xf32, #dnn.layout<OIhw16i16o>>
  func.return %r : tensor<16x8x3x3xf32, #dnn.layout<OIhw16i16o>>
}

// -----

/// A constant read plain and blocked: the plain one stays, a blocked copy is added.
// CHECK-LABEL: func.func @fold_reorder_into_constant_shared
// CHECK-DAG:     %[[P:.*]] = dnn.constant dense<1.000000e+00> : tensor<1x16x2x2xf32>
// CHECK-DAG:     %[[B:.*]] = dnn.constant dense<1.000000e+00> : tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
// CHECK-NOT:     dnn.reorder
// CHECK:         func.return %[[P]], %[[B]]
func.func @fold_reorder_into_constant_shared() -> (tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>) {
  %c = dnn.constant dense<1.0> : tensor<1x16x2x2xf32>
  %r = dnn.reorder %c : (tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
  func.return %c, %r : tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
}

// -----

/// A cast between float types of a constant is done once, here: the constant holds the
/// values rounded to nearest even, as oneDNN's cast would round them at every run (1.00390625
/// is halfway between the bf16 values 1.0 and 1.0078125: even is 1.0; 1.01171875 halfway
/// between 1.0078125 and 1.015625: even is 1.015625, where truncating gives 1.0078125),
/// layout kept.
// CHECK-LABEL: func.func @fold_cast_into_constant
// CHECK:         %[[C:.*]] = dnn.constant dense<[1.000000e+00, 1.015620e+00, -2.000000e+00, 3.000000e+00]> : tensor<4xbf16>
// CHECK-NOT:     dnn.cast
// CHECK:         %[[P:.*]] = dnn.constant dense<1.000000e+00> : tensor<1x16x2x2xbf16, #dnn.layout<nChw16c>>
// CHECK-NOT:     dnn.cast
// CHECK:         func.return %[[C]], %[[P]]
// REMARK: remark: [dnn-remove-redundant-reorders] run-time reorders 0 -> 0 (0 -> 0 bytes moved), casts 2 -> 0
func.func @fold_cast_into_constant() -> (tensor<4xbf16>, tensor<1x16x2x2xbf16, #dnn.layout<nChw16c>>) {
  %c = dnn.constant dense<[1.00390625, 1.01171875, -2.0, 3.0]> : tensor<4xf32>
  %b = dnn.cast %c : (tensor<4xf32>) -> tensor<4xbf16>
  %k = dnn.constant dense<1.0> : tensor<1x16x2x2xf32>
  %r = dnn.reorder %k : (tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
  %p = dnn.cast %r : (tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>) -> tensor<1x16x2x2xbf16, #dnn.layout<nChw16c>>
  func.return %b, %p : tensor<4xbf16>, tensor<1x16x2x2xbf16, #dnn.layout<nChw16c>>
}

// -----

/// A cast that widens an integer type (a zero point to the s32 oneDNN takes) loses nothing:
/// done once, here.
// CHECK-LABEL: func.func @fold_widening_integer_cast_into_constant
// CHECK:         %[[C:.*]] = dnn.constant dense<[-128, 127, 0, 7]> : tensor<4xi32>
// CHECK-NOT:     dnn.cast
// CHECK:         func.return %[[C]]
func.func @fold_widening_integer_cast_into_constant() -> tensor<4xi32> {
  %c = dnn.constant dense<[-128, 127, 0, 7]> : tensor<4xi8>
  %b = dnn.cast %c : (tensor<4xi8>) -> tensor<4xi32>
  func.return %b : tensor<4xi32>
}

// -----

/// A cast to an integer type saturates and rounds oneDNN's way: it stays for oneDNN.
// CHECK-LABEL: func.func @negative_integer_cast_of_constant
// CHECK:         %c = dnn.constant
// CHECK:         dnn.cast %c
func.func @negative_integer_cast_of_constant() -> tensor<4xi8> {
  %c = dnn.constant dense<[1.5, 2.5, -300.0, 3.0]> : tensor<4xf32>
  %b = dnn.cast %c : (tensor<4xf32>) -> tensor<4xi8>
  func.return %b : tensor<4xi8>
}

// -----

/// Narrowing between integer types saturates (300 does not fit i8): it stays for oneDNN.
// CHECK-LABEL: func.func @negative_narrowing_integer_cast_of_constant
// CHECK:         %c = dnn.constant
// CHECK:         dnn.cast %c
func.func @negative_narrowing_integer_cast_of_constant() -> tensor<2xi8> {
  %c = dnn.constant dense<[300, 7]> : tensor<2xi32>
  %b = dnn.cast %c : (tensor<2xi32>) -> tensor<2xi8>
  func.return %b : tensor<2xi8>
}

// -----

/// A cast moves below the reshapes after it, where a cast back meets it: bf16 -> f32 ->
/// bf16 is the identity, so the two cancel and only the reshapes (views) are left.
// CHECK-LABEL: func.func @sink_cast_below_reshapes
// CHECK:         %[[A:.*]] = dnn.reshape %x : (tensor<8x12xbf16>) -> tensor<1x8x12xbf16>
// CHECK-NEXT:    %[[B:.*]] = dnn.reshape %[[A]] : (tensor<1x8x12xbf16>) -> tensor<1x8x3x4xbf16>
// CHECK-NEXT:    func.return %[[B]]
// REMARK: remark: [dnn-remove-redundant-reorders] run-time reorders 0 -> 0 (0 -> 0 bytes moved), casts 2 -> 0
func.func @sink_cast_below_reshapes(%x: tensor<8x12xbf16>) -> tensor<1x8x3x4xbf16> {
  %c = dnn.cast %x : (tensor<8x12xbf16>) -> tensor<8x12xf32>
  %r = dnn.reshape %c : (tensor<8x12xf32>) -> tensor<1x8x12xf32>
  %s = dnn.reshape %r : (tensor<1x8x12xf32>) -> tensor<1x8x3x4xf32>
  %b = dnn.cast %s : (tensor<1x8x3x4xf32>) -> tensor<1x8x3x4xbf16>
  func.return %b : tensor<1x8x3x4xbf16>
}

// -----

/// A rounding cast moves too (same values: it is element-wise), keeping its kernel; one
/// whose result is also read elsewhere stays where it is.
// CHECK-LABEL: func.func @sink_rounding_cast_not_shared
// CHECK:         %[[R:.*]] = dnn.reshape %x : (tensor<8x12xf32>) -> tensor<96xf32>
// CHECK-NEXT:    %[[C:.*]] = dnn.cast %[[R]] {dnn.kernel = #dnn.kernel<onednn, f32>} : (tensor<96xf32>) -> tensor<96xbf16>
// CHECK:         %[[D:.*]] = dnn.cast %y : (tensor<8x12xf32>) -> tensor<8x12xbf16>
// CHECK-NEXT:    %[[S:.*]] = dnn.reshape %[[D]] : (tensor<8x12xbf16>) -> tensor<96xbf16>
// CHECK-NEXT:    func.return %[[C]], %[[S]], %[[D]]
func.func @sink_rounding_cast_not_shared(%x: tensor<8x12xf32>, %y: tensor<8x12xf32>) -> (tensor<96xbf16>, tensor<96xbf16>, tensor<8x12xbf16>) {
  %c = dnn.cast %x {dnn.kernel = #dnn.kernel<onednn, f32>} : (tensor<8x12xf32>) -> tensor<8x12xbf16>
  %r = dnn.reshape %c : (tensor<8x12xbf16>) -> tensor<96xbf16>
  %d = dnn.cast %y : (tensor<8x12xf32>) -> tensor<8x12xbf16>
  %s = dnn.reshape %d : (tensor<8x12xbf16>) -> tensor<96xbf16>
  func.return %r, %s, %d : tensor<96xbf16>, tensor<96xbf16>, tensor<8x12xbf16>
}

// -----

/// A cast of a weight whose file cannot be read stays, with a remark (a weight that can be
/// read is cast once: dnn-remove-redundant-reorders-weights.mlir).
// CHECK-LABEL: func.func @negative_cast_of_weight
// CHECK:         %w = dnn.weight "w.npz", "w" : tensor<4xf32>
// CHECK:         dnn.cast %w
// REMARK: remark: [dnn-remove-redundant-reorders] cast kept: the weight cannot be read here
func.func @negative_cast_of_weight() -> tensor<4xbf16> {
  %w = dnn.weight "w.npz", "w" : tensor<4xf32>
  %c = dnn.cast %w : (tensor<4xf32>) -> tensor<4xbf16>
  func.return %c : tensor<4xbf16>
}

// -----

/// Two reorders of one value to different layouts are two different transforms: both stay.
// CHECK-LABEL: func.func @negative_share_different_layouts
// CHECK:         %[[A:.*]] = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
// CHECK:         %[[B:.*]] = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
// CHECK:         dnn.eltwise relu %[[A]]
// CHECK:         dnn.eltwise tanh %[[B]]
// REMARK: remark: [dnn-remove-redundant-reorders] run-time reorders 2 -> 2 (4096 -> 4096 bytes moved), casts 0 -> 0
func.func @negative_share_different_layouts(%src: tensor<1x16x4x4xf32>) -> (tensor<1x16x4x4xf32, #dnn.layout<nhwc>>, tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>) {
  %a = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %b = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  %x = dnn.eltwise relu %a : tensor<1x16x4x4xf32, #dnn.layout<nhwc>>
  %y = dnn.eltwise tanh %b : tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
  func.return %x, %y : tensor<1x16x4x4xf32, #dnn.layout<nhwc>>, tensor<1x16x4x4xf32, #dnn.layout<nChw16c>>
}
