// RUN: dnnc-opt %s --split-input-file -p dnn-buffer-fusing | filecheck %s
// RUN: dnnc-opt %s --split-input-file -p dnn-buffer-fusing --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: dnnc-opt %s --split-input-file -p dnn-buffer-fusing,dnn-to-onednn | filecheck %s --check-prefix=LOWER

/// Channel concat of two convs with N = 1 in plain layout: each conv writes its part of the
/// concat.s buffer (1x4x4x4 f32: 256 bytes each), the concat runs nothing.
// CHECK-LABEL: func.func @concat_channels
// CHECK:         dnn.concat %a, %b {dnn.implicit_concat = array<i64: 0, 256>, axis = 1 : i64}
// REMARK: remark: [dnn-buffer-fusing] implicit concat: the inputs are written at byte offsets [0, 256]
// LOWER-LABEL: func.func @concat_channels
// LOWER:         %[[WHOLE:.*]] = onednn.arena_view [[OFF:[0-9]+]] : !onednn.memory<1x8x4x4xf32>
// LOWER:         %[[A:.*]] = onednn.subview %[[WHOLE]][0] : !onednn.memory<1x8x4x4xf32> -> !onednn.memory<1x4x4x4xf32>
// LOWER:         onednn.primitive convolution {{.*}} outs(dst = %[[A]] : !onednn.memory<1x4x4x4xf32>)
// LOWER:         %[[B:.*]] = onednn.subview %[[WHOLE]][256] : !onednn.memory<1x8x4x4xf32> -> !onednn.memory<1x4x4x4xf32>
// LOWER:         onednn.primitive convolution {{.*}} outs(dst = %[[B]] : !onednn.memory<1x4x4x4xf32>)
// LOWER-NOT:     concat
// LOWER:         onednn.primitive eltwise ins(src = %[[WHOLE]] : !onednn.memory<1x8x4x4xf32>)
func.func @concat_channels(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x8x4x4xf32> {
  %a = dnn.conv2d %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %b = dnn.conv2d %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %c = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = dnn.eltwise relu %c : tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// -----

/// Blocked nChw16c on the channel axis: 16 + 16 channels, offsets whole blocks (16x2x2 f32 = 256 bytes).
// CHECK-LABEL: func.func @concat_blocked_aligned
// CHECK:         dnn.implicit_concat = array<i64: 0, 256>
func.func @concat_blocked_aligned(%x: tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>) -> tensor<1x32x2x2xf32, #dnn.layout<nChw16c>> {
  %a = dnn.eltwise relu %x : tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
  %b = dnn.eltwise tanh %x : tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
  %c = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>, tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>) -> tensor<1x32x2x2xf32, #dnn.layout<nChw16c>>
  %y = dnn.eltwise exp %c : tensor<1x32x2x2xf32, #dnn.layout<nChw16c>>
  func.return %y : tensor<1x32x2x2xf32, #dnn.layout<nChw16c>>
}

// -----

/// Blocked with 8 channels first: the second input would start inside a 16-channel block.
// CHECK-LABEL: func.func @negative_concat_blocked_misaligned
// CHECK-NOT:     dnn.implicit_concat
// REMARK: remark: [dnn-buffer-fusing] not fused: the inputs are not contiguous parts of a nChw16c result
func.func @negative_concat_blocked_misaligned(%x: tensor<1x8x2x2xf32, #dnn.layout<nChw16c>>) -> tensor<1x16x2x2xf32, #dnn.layout<nChw16c>> {
  %a = dnn.eltwise relu %x : tensor<1x8x2x2xf32, #dnn.layout<nChw16c>>
  %b = dnn.eltwise tanh %x : tensor<1x8x2x2xf32, #dnn.layout<nChw16c>>
  %c = dnn.concat %a, %b {axis = 1 : i64} : (tensor<1x8x2x2xf32, #dnn.layout<nChw16c>>, tensor<1x8x2x2xf32, #dnn.layout<nChw16c>>) -> tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
  %y = dnn.eltwise exp %c : tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
  func.return %y : tensor<1x16x2x2xf32, #dnn.layout<nChw16c>>
}

// -----

/// Batch 2, channel concat in plain layout: each input is two strided pieces.
// CHECK-LABEL: func.func @negative_concat_strided
// CHECK-NOT:     dnn.implicit_concat
// REMARK: remark: [dnn-buffer-fusing] not fused: the inputs are not contiguous parts
func.func @negative_concat_strided(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  %a = dnn.eltwise relu %x : tensor<2x4xf32>
  %b = dnn.eltwise tanh %x : tensor<2x4xf32>
  %c = dnn.concat %a, %b {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  func.return %c : tensor<2x8xf32>
}

// -----

/// A function argument's bytes are the caller's: its producer cannot write into the concat.
// CHECK-LABEL: func.func @negative_concat_argument
// CHECK-NOT:     dnn.implicit_concat
// REMARK: remark: [dnn-buffer-fusing] not fused: input 1 (%x) lives in a function argument: its producer is not ours
func.func @negative_concat_argument(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %a = dnn.eltwise relu %x : tensor<2x4xf32>
  %c = dnn.concat %a, %x {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  func.return %c : tensor<4x4xf32>
}

// -----

/// The same value concatenated twice cannot live in two places.
// CHECK-LABEL: func.func @negative_concat_input_twice
// CHECK-NOT:     dnn.implicit_concat
// REMARK: remark: [dnn-buffer-fusing] not fused: input 1 (%a) shares its buffer with an earlier input
func.func @negative_concat_input_twice(%x: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %a = dnn.eltwise relu %x : tensor<2x4xf32>
  %c = dnn.concat %a, %a {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  func.return %c : tensor<4x4xf32>
}

// -----

/// An input of one implicit concat cannot be an input of a second one.
// CHECK-LABEL: func.func @negative_input_of_two_concats
// CHECK:         %c = dnn.concat %a, %b {dnn.implicit_concat = array<i64: 0, 32>, axis = 0 : i64}
// CHECK:         %d = dnn.concat %b, %a {axis = 0 : i64} :
// REMARK: remark: [dnn-buffer-fusing] not fused: input 0 (%b) is already part of a larger buffer
func.func @negative_input_of_two_concats(%x: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = dnn.eltwise relu %x : tensor<2x4xf32>
  %b = dnn.eltwise tanh %x : tensor<2x4xf32>
  %c = dnn.concat %a, %b {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %d = dnn.concat %b, %a {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  func.return %c, %d : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

/// A producer read again after the concat is fine: its part is not written again. The
/// concat's buffer, returned, is copied into the caller's array.
// CHECK-LABEL: func.func @concat_input_read_after
// CHECK:         dnn.implicit_concat = array<i64: 0, 32>
// LOWER-LABEL: func.func @concat_input_read_after
// LOWER:         onednn.primitive eltwise ins(src = %{{.*}} : !onednn.memory<2x4xf32>) outs(dst = %result1
// LOWER:         onednn.primitive reorder ins(src = %{{.*}} : !onednn.memory<4x4xf32>) outs(dst = %result0
func.func @concat_input_read_after(%x: tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>) {
  %a = dnn.eltwise relu %x : tensor<2x4xf32>
  %b = dnn.eltwise tanh %x : tensor<2x4xf32>
  %c = dnn.concat %a, %b {axis = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %e = dnn.eltwise exp %a : tensor<2x4xf32>
  func.return %c, %e : tensor<4x4xf32>, tensor<2x4xf32>
}

// -----

/// A slice of whole rows is a view (row 1 of 4x4 f32: byte 16); a column slice is strided.
// CHECK-LABEL: func.func @slice_view
// CHECK:         %s = dnn.slice %a {{.*}}dnn.implicit_slice = 32 : i64
// CHECK:         %t = dnn.slice %a
// CHECK-NOT:     dnn.implicit_slice
// REMARK: remark: [dnn-buffer-fusing] implicit slice: a view at byte offset 32
// REMARK: remark: [dnn-buffer-fusing] not fused: the window is not a contiguous part of the nc source
// LOWER-LABEL: func.func @slice_view
// LOWER:         onednn.subview %{{.*}}[32] : !onednn.memory<4x4xf32> -> !onednn.memory<2x4xf32>
func.func @slice_view(%x: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<4x2xf32>) {
  %a = dnn.eltwise relu %x : tensor<4x4xf32>
  %s = dnn.slice %a {starts = array<i64: 2, 0>, ends = array<i64: 4, 4>} : (tensor<4x4xf32>) -> tensor<2x4xf32>
  %t = dnn.slice %a {starts = array<i64: 0, 1>, ends = array<i64: 4, 3>} : (tensor<4x4xf32>) -> tensor<4x2xf32>
  %u = dnn.eltwise exp %s : tensor<2x4xf32>
  func.return %u, %t : tensor<2x4xf32>, tensor<4x2xf32>
}
