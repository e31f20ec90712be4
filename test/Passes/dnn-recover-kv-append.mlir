// RUN: dnnc-opt %s -p dnn-recover-kv-append --split-input-file | filecheck %s
// RUN: dnnc-opt %s -p dnn-recover-kv-append --split-input-file --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: dnnc-opt %s -p dnn-optimize --split-input-file | filecheck %s --check-prefix=OPT

/// A decoder layer's cache as the exporters write it: the past (an argument) and the step's
/// keys concatenated on the sequence axis, the result both read by attention and returned as
/// the present. The concat becomes an append; its readers read the append.
// CHECK-LABEL: func.func @append_past_keys
// CHECK-NOT:     dnn.concat
// CHECK:         %[[P:.*]] = dnn.kv_append %past, %new {axis = 2 : i64} : (tensor<1x2x5x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x6x8xf32>
// CHECK-NEXT:    %[[S:.*]] = dnn.matmul %q, %[[P]]
// CHECK-NEXT:    func.return %[[S]], %[[P]]
// REMARK: remark: [dnn-recover-kv-append] cache append
/// dnn-optimize runs the pass, and the append is still there after the whole pipeline.
// OPT-LABEL: func.func @append_past_keys
// OPT:         dnn.kv_append %past, %new
// OPT-NEXT:    dnn.matmul %q, %present
func.func @append_past_keys(%past: tensor<1x2x5x8xf32>, %new: tensor<1x2x1x8xf32>, %q: tensor<1x2x1x6xf32>) -> (tensor<1x2x1x8xf32>, tensor<1x2x6x8xf32>) {
  %present = dnn.concat %past, %new {axis = 2 : i64} : (tensor<1x2x5x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x6x8xf32>
  %s = dnn.matmul %q, %present : (tensor<1x2x1x6xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x1x8xf32>
  func.return %s, %present : tensor<1x2x1x8xf32>, tensor<1x2x6x8xf32>
}

// -----

/// NOT rewritten: the result is only read, never returned (no cache is handed back).
// CHECK-LABEL: func.func @not_returned
// CHECK:         dnn.concat %past, %new
// CHECK-NOT:     dnn.kv_append
// REMARK: remark: [dnn-recover-kv-append] not a cache append: the result is not returned
func.func @not_returned(%past: tensor<1x2x5x8xf32>, %new: tensor<1x2x1x8xf32>) -> tensor<1x2x6x8xf32> {
  %c = dnn.concat %past, %new {axis = 2 : i64} : (tensor<1x2x5x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x6x8xf32>
  %y = dnn.eltwise relu %c : tensor<1x2x6x8xf32>
  func.return %y : tensor<1x2x6x8xf32>
}

// -----

/// NOT rewritten: the argument comes second (a prepend, not an append).
// CHECK-LABEL: func.func @prepend
// CHECK:         dnn.concat %new, %past
// CHECK-NOT:     dnn.kv_append
// REMARK: remark: [dnn-recover-kv-append] not a cache append: the first input is not an argument of the function
func.func @prepend(%past: tensor<1x2x5x8xf32>, %x: tensor<1x2x1x8xf32>) -> tensor<1x2x6x8xf32> {
  %new = dnn.eltwise relu %x : tensor<1x2x1x8xf32>
  %c = dnn.concat %new, %past {axis = 2 : i64} : (tensor<1x2x1x8xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x6x8xf32>
  func.return %c : tensor<1x2x6x8xf32>
}

// -----

/// NOT rewritten: three inputs (not a cache and one step).
// CHECK-LABEL: func.func @three_inputs
// CHECK:         dnn.concat %past, %a, %b
// CHECK-NOT:     dnn.kv_append
// REMARK: remark: [dnn-recover-kv-append] not a cache append: 3 inputs, not a cache and one step
func.func @three_inputs(%past: tensor<1x2x5x8xf32>, %a: tensor<1x2x1x8xf32>, %b: tensor<1x2x1x8xf32>) -> tensor<1x2x7x8xf32> {
  %c = dnn.concat %past, %a, %b {axis = 2 : i64} : (tensor<1x2x5x8xf32>, tensor<1x2x1x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x7x8xf32>
  func.return %c : tensor<1x2x7x8xf32>
}

// -----

/// NOT rewritten: the past is also read apart from the concat (bound over the present, it
/// could not be read as a separate array).
// CHECK-LABEL: func.func @past_read_twice
// CHECK:         dnn.concat %past, %new
// CHECK-NOT:     dnn.kv_append
// REMARK: remark: [dnn-recover-kv-append] not a cache append: the past has another reader
func.func @past_read_twice(%past: tensor<1x2x5x8xf32>, %new: tensor<1x2x1x8xf32>) -> (tensor<1x2x6x8xf32>, tensor<1x2x5x8xf32>) {
  %c = dnn.concat %past, %new {axis = 2 : i64} : (tensor<1x2x5x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x6x8xf32>
  %y = dnn.eltwise relu %past : tensor<1x2x5x8xf32>
  func.return %c, %y : tensor<1x2x6x8xf32>, tensor<1x2x5x8xf32>
}
