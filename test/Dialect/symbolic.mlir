/// The symbolic-shape contract (docs/dialect.md, "Symbolic dimensions"): a function binds
/// symbols to its ? input dimensions (dnn.symbols), a reshape keeps its target as expressions
/// over them (dnn.dims), the conditions its import holds under are dnn.guards, and an
/// argument computed per call from the symbols has a dnn.shape_function. The IR prints and
/// parses back unchanged (invalid-symbolic.mlir: each broken rule).
// RUN: dnnc-opt %s | filecheck %s
// RUN: dnnc-opt %s | dnnc-opt | filecheck %s

// CHECK-LABEL: func.func @heads(%x: tensor<?x?x768xf32>, %past: tensor<?x?x64xf32>, %positions: tensor<?xi64> {dnn.shape_function = "range(s3, (s3+s1), 1)"})
// CHECK-SAME:    dnn.symbols = [array<i64: 0, 0>, array<i64: 0, 1>, array<i64: 1, 0>, array<i64: 1, 1>]
// CHECK-SAME:    dnn.guards = ["s0 == s2", "(s3+s1) <= 512"]
// CHECK:         dnn.reshape %x {dnn.dims = ["s0", "s1", "12", "64"]}
func.func @heads(%x: tensor<?x?x768xf32>, %past: tensor<?x?x64xf32>, %positions: tensor<?xi64> {dnn.shape_function = "range(s3, (s3+s1), 1)"}) -> tensor<?x?x12x64xf32> attributes {dnn.symbols = [array<i64: 0, 0>, array<i64: 0, 1>, array<i64: 1, 0>, array<i64: 1, 1>], dnn.guards = ["s0 == s2", "(s3+s1) <= 512"]} {
  %y = dnn.reshape %x {dnn.dims = ["s0", "s1", "12", "64"]} : (tensor<?x?x768xf32>) -> tensor<?x?x12x64xf32>
  func.return %y : tensor<?x?x12x64xf32>
}

// CHECK-LABEL: func.func @positions_up_to_length
// CHECK:         dnn.slice %table {dnn.dims = ["1", "s1"], starts = array<i64: 0, 0>, ends = array<i64: 1, 512>, steps = array<i64: 1, 1>}
/// A unit-step slice up to a size: its end on the ? axis is the source's size, the end being
/// its start plus dnn.dims' size.
func.func @positions_up_to_length(%ids: tensor<?x?xi64>, %table: tensor<1x512xi64>) -> tensor<1x?xi64> attributes {dnn.symbols = [array<i64: 0, 0>, array<i64: 0, 1>], dnn.guards = ["s1 <= 512"]} {
  %y = dnn.slice %table {dnn.dims = ["1", "s1"], starts = array<i64: 0, 0>, ends = array<i64: 1, 512>, steps = array<i64: 1, 1>} : (tensor<1x512xi64>) -> tensor<1x?xi64>
  func.return %y : tensor<1x?xi64>
}
