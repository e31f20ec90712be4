/// One case per verifier rule of the data ops (concat ... weight): the message says what is
/// wrong and what would be valid. The second RUN checks that no case verifies.
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=NOMODULE
// NOMODULE-NOT: builtin.module

/// Concatenated inputs agree in every dimension but the axis.
// CHECK: inputs[1] 1x5x4x2 must match inputs[0] 1x3x4x4 in every dimension but axis 1
func.func @negative_concat_other_dim(%a: tensor<1x3x4x4xf32>, %b: tensor<1x5x4x2xf32>) -> tensor<1x8x4x4xf32> {
  %y = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<1x5x4x2xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

/// Concatenated inputs have one rank.
// CHECK: inputs[1] 3x4x4 must match inputs[0] 1x3x4x4 in every dimension but axis 1
func.func @negative_concat_rank(%a: tensor<1x3x4x4xf32>, %b: tensor<3x4x4xf32>) -> tensor<1x6x4x4xf32> {
  %y = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<3x4x4xf32>) -> tensor<1x6x4x4xf32>
  func.return %y : tensor<1x6x4x4xf32>
}

// -----

/// The concat axis is in range.
// CHECK: axis 2 is out of range for rank 2: expected -2..1
func.func @negative_concat_axis_range(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %y = dnn.concat %a, %b {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  func.return %y : tensor<4x3xf32>
}

// -----

/// The concat result size along the axis is the sum of the inputs'.
// CHECK: result shape 2x5 does not match the inferred shape 2x6
func.func @negative_concat_result_shape(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x5xf32> {
  %y = dnn.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  func.return %y : tensor<2x5xf32>
}

// -----

/// A concat of nothing has no shape (generic form).
// CHECK: needs at least one input
func.func @negative_concat_no_inputs() -> tensor<2x3xf32> {
  %y = "dnn.concat"() <{axis = 0 : i64}> : () -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

/// starts, ends and steps have one entry per dimension.
// CHECK: starts has 1 entries, expected one per dimension (2)
func.func @negative_slice_starts_length(%src: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %y = dnn.slice %src {starts = array<i64: 0>, ends = array<i64: 2, 4>} : (tensor<4x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

/// A slice ends inside the tensor.
// CHECK: dimension 1: expected 0 <= start (0) <= end (5) <= size (4)
func.func @negative_slice_end_past_dim(%src: tensor<4x4xf32>) -> tensor<4x5xf32> {
  %y = dnn.slice %src {starts = array<i64: 0, 0>, ends = array<i64: 4, 5>} : (tensor<4x4xf32>) -> tensor<4x5xf32>
  func.return %y : tensor<4x5xf32>
}

// -----

/// A slice does not run backwards.
// CHECK: dimension 0: expected 0 <= start (3) <= end (2) <= size (4)
func.func @negative_slice_start_after_end(%src: tensor<4x4xf32>) -> tensor<0x4xf32> {
  %y = dnn.slice %src {starts = array<i64: 3, 0>, ends = array<i64: 2, 4>} : (tensor<4x4xf32>) -> tensor<0x4xf32>
  func.return %y : tensor<0x4xf32>
}

// -----

/// Steps are positive.
// CHECK: steps[1] must be >= 1, got 0
func.func @negative_slice_step_zero(%src: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = dnn.slice %src {starts = array<i64: 0, 0>, ends = array<i64: 4, 4>, steps = array<i64: 1, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

/// The slice result has ceil((end - start) / step) entries per dimension.
// CHECK: result shape 4x1 does not match the inferred shape 4x2
func.func @negative_slice_result_shape(%src: tensor<4x4xf32>) -> tensor<4x1xf32> {
  %y = dnn.slice %src {starts = array<i64: 0, 0>, ends = array<i64: 4, 4>, steps = array<i64: 1, 3>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
  func.return %y : tensor<4x1xf32>
}

// -----

/// A reshape keeps the number of elements.
// CHECK: cannot reshape 2x3x4 (24 elements) to 2x10 (20 elements)
func.func @negative_reshape_element_count(%src: tensor<2x3x4xf32>) -> tensor<2x10xf32> {
  %y = dnn.reshape %src : (tensor<2x3x4xf32>) -> tensor<2x10xf32>
  func.return %y : tensor<2x10xf32>
}

// -----

/// A reshape views plain data: a blocked src must be reordered first.
// CHECK: src must have the plain layout: a reshape views plain data (dnn.reorder to plain first)
func.func @negative_reshape_blocked_src(%src: tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>) -> tensor<1x64xf32> {
  %y = dnn.reshape %src : (tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>) -> tensor<1x64xf32>
  func.return %y : tensor<1x64xf32>
}

// -----

/// The permutation names every dimension once.
// CHECK: permutation [0, 0, 2] must be a permutation of 0..2
func.func @negative_transpose_not_permutation(%src: tensor<2x3x4xf32>) -> tensor<2x2x4xf32> {
  %y = dnn.transpose %src {permutation = array<i64: 0, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<2x2x4xf32>
  func.return %y : tensor<2x2x4xf32>
}

// -----

/// A transpose's result is in its src's layout (the data move) or in the one that makes it a
/// view of src's bytes (acbd here): any other layout is neither.
// CHECK: result layout abdc must equal the src layout nchw: only dnn.reorder changes a layout, or be the src layout transposed (a view of unblocked data)
func.func @negative_transpose_result_layout(%src: tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32, #dnn.layout<abdc>> {
  %y = dnn.transpose %src {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x8x4x16xf32>) -> tensor<1x4x8x16xf32, #dnn.layout<abdc>>
  func.return %y : tensor<1x4x8x16xf32, #dnn.layout<abdc>>
}

// -----

/// The transposed shape follows the permutation.
// CHECK: result shape 2x3x4 does not match the inferred shape 4x3x2
func.func @negative_transpose_result_shape(%src: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = dnn.transpose %src {permutation = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// -----

/// top_k cannot pick more entries than the axis has.
// CHECK: k (11) exceeds the size of axis -1 (10)
func.func @negative_top_k_k_too_large(%src: tensor<6x10xf32>) -> (tensor<6x11xf32>, tensor<6x11xi64>) {
  %v, %i = dnn.top_k %src {k = 11 : i64} : (tensor<6x10xf32>) -> (tensor<6x11xf32>, tensor<6x11xi64>)
  func.return %v, %i : tensor<6x11xf32>, tensor<6x11xi64>
}

// -----

/// top_k picks at least one entry.
// CHECK: k must be >= 1, got 0
func.func @negative_top_k_k_zero(%src: tensor<6x10xf32>) -> (tensor<6x0xf32>, tensor<6x0xi64>) {
  %v, %i = dnn.top_k %src {k = 0 : i64} : (tensor<6x10xf32>) -> (tensor<6x0xf32>, tensor<6x0xi64>)
  func.return %v, %i : tensor<6x0xf32>, tensor<6x0xi64>
}

// -----

/// top_k indices are i64.
// CHECK: indices must have element type i64, got i32
func.func @negative_top_k_indices_i32(%src: tensor<6x10xf32>) -> (tensor<6x3xf32>, tensor<6x3xi32>) {
  %v, %i = dnn.top_k %src {k = 3 : i64} : (tensor<6x10xf32>) -> (tensor<6x3xf32>, tensor<6x3xi32>)
  func.return %v, %i : tensor<6x3xf32>, tensor<6x3xi32>
}

// -----

/// top_k values keep the src element type.
// CHECK: values element type f16 must equal the src element type f32: only dnn.cast changes an element type
func.func @negative_top_k_values_type(%src: tensor<6x10xf32>) -> (tensor<6x3xf16>, tensor<6x3xi64>) {
  %v, %i = dnn.top_k %src {k = 3 : i64} : (tensor<6x10xf32>) -> (tensor<6x3xf16>, tensor<6x3xi64>)
  func.return %v, %i : tensor<6x3xf16>, tensor<6x3xi64>
}

// -----

/// A reorder keeps the logical shape.
// CHECK: result shape 1x16x4x2 does not match the inferred shape 1x16x4x4
func.func @negative_reorder_shape(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x2xf32, #dnn.layout<nChw16c>> {
  %y = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x2xf32, #dnn.layout<nChw16c>>
  func.return %y : tensor<1x16x4x2xf32, #dnn.layout<nChw16c>>
}

// -----

/// A reorder keeps the element type (dnn.cast converts).
// CHECK: result element type bf16 must equal the src element type f32: only dnn.cast changes an element type
func.func @negative_reorder_element_type(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xbf16, #dnn.layout<nChw16c>> {
  %y = dnn.reorder %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xbf16, #dnn.layout<nChw16c>>
  func.return %y : tensor<1x16x4x4xbf16, #dnn.layout<nChw16c>>
}

// -----

/// A cast keeps the layout (dnn.reorder changes it).
// CHECK: result layout nChw16c must equal the src layout nchw: only dnn.reorder changes a layout
func.func @negative_cast_layout(%src: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xbf16, #dnn.layout<nChw16c>> {
  %y = dnn.cast %src : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xbf16, #dnn.layout<nChw16c>>
  func.return %y : tensor<1x16x4x4xbf16, #dnn.layout<nChw16c>>
}

// -----

/// A cast keeps the shape.
// CHECK: result shape 3x2 does not match the inferred shape 2x3
func.func @negative_cast_shape(%src: tensor<2x3xf32>) -> tensor<3x2xbf16> {
  %y = dnn.cast %src : (tensor<2x3xf32>) -> tensor<3x2xbf16>
  func.return %y : tensor<3x2xbf16>
}

// -----

/// A constant's result type is its value's type (generic form).
// CHECK: value type tensor<2xf32> must equal the result type tensor<3xf32>
func.func @negative_constant_type(%src: tensor<2xf32>) -> tensor<3xf32> {
  %y = "dnn.constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// -----

/// A constant's value is dense elements.
// CHECK: dnn.constant expects a dense<...> : tensor<...> value
func.func @negative_constant_not_dense() -> tensor<2xf32> {
  %y = dnn.constant 1.0 : f32
  func.return %y : tensor<2xf32>
}

// -----

/// An .npz file holds several arrays: the key says which.
// CHECK: file 'weights.npz' with no key: expected an .npz file and a key, or an .npy file and no key
func.func @negative_weight_npz_without_key() -> tensor<16xf32> {
  %w = dnn.weight "weights.npz" : tensor<16xf32>
  func.return %w : tensor<16xf32>
}

// -----

/// Weights come from numpy files only.
// CHECK: file 'weights.bin' with a key: expected an .npz file and a key, or an .npy file and no key
func.func @negative_weight_unknown_suffix() -> tensor<16xf32> {
  %w = dnn.weight "weights.bin", "conv1" : tensor<16xf32>
  func.return %w : tensor<16xf32>
}

// -----

/// Sources follow the element type rules too.
// CHECK: result has element type f64, expected one of f32, bf16, f16, i8, ui8, i32
func.func @negative_weight_element_type() -> tensor<16xf64> {
  %w = dnn.weight "bias.npy" : tensor<16xf64>
  func.return %w : tensor<16xf64>
}

// -----

/// gather indices are integers.
// CHECK: indices have element type f32, expected i32 or i64
func.func @negative_gather_float_indices(%w: tensor<10x4xf32>, %i: tensor<3xf32>) -> tensor<3x4xf32> {
  %e = dnn.gather %w[%i] : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  func.return %e : tensor<3x4xf32>
}

// -----

/// gather's result has the indices' dimensions in place of the axis.
// CHECK: result shape 3x4 does not match the inferred shape 2x3x4
func.func @negative_gather_result_shape(%w: tensor<10x4xf32>, %i: tensor<2x3xi64>) -> tensor<3x4xf32> {
  %e = dnn.gather %w[%i] : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<3x4xf32>
  func.return %e : tensor<3x4xf32>
}

// -----

/// gather_elements' indices have src's rank.
// CHECK: indices 4 must have the rank of src 10x4
func.func @negative_gather_elements_rank(%w: tensor<10x4xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  %e = dnn.gather_elements %w[%i] : (tensor<10x4xf32>, tensor<4xi64>) -> tensor<4xf32>
  func.return %e : tensor<4xf32>
}

// -----

/// Off the axis, gather_elements' indices reach no further than src.
// CHECK: indices 2x5 exceed src 10x4 on axis 1
func.func @negative_gather_elements_too_wide(%w: tensor<10x4xf32>, %i: tensor<2x5xi64>) -> tensor<2x5xf32> {
  %e = dnn.gather_elements %w[%i] : (tensor<10x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32>
  func.return %e : tensor<2x5xf32>
}

// -----

/// A comparison's result is i1.
// CHECK: result must have element type i1, got f32
func.func @negative_compare_f32_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = dnn.compare lt %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

/// Logic is on booleans.
// CHECK: operands must be i1: logic is on booleans
func.func @negative_logical_on_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  %c = dnn.logical and %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  func.return %c : tensor<4xi1>
}

// -----

/// where's condition is i1.
// CHECK: condition must be i1
func.func @negative_where_f32_condition(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %w = dnn.where %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %w : tensor<4xf32>
}

// -----

/// expand's shape must broadcast with src.
// CHECK: shapes 2x4 and 3 do not broadcast
func.func @negative_expand_shape(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = dnn.expand %a {shape = array<i64: 3>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %e : tensor<2x4xf32>
}
