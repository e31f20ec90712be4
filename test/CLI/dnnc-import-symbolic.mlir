/// dnnc-import --symbolic: an ONNX model with ? input dimensions imported once, the sizes its
/// shape arithmetic computes from them written as expressions (docs/dialect.md, "Symbolic
/// dimensions"). The models come from Inputs/symbolic_models.py.

/// Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the reshape target is an expression of
/// the input dimensions (dnn.dims), bound by dnn.symbols; no Shape arithmetic is left.
// RUN: %python %S/Inputs/symbolic_models.py reshape_chain %t.chain.onnx
// RUN: dnnc-import --symbolic %t.chain.onnx | filecheck %s --check-prefix=CHAIN
// CHAIN-LABEL: func.func @reshape_chain(%x: tensor<?x?x8xf32>)
// CHAIN-SAME:    dnn.symbols = [array<i64: 0, 0>, array<i64: 0, 1>]
// CHAIN-NOT:     dnn.constant
// CHAIN:         %y = dnn.reshape %x {dnn.dims = ["s0", "s1", "2", "4"]} : (tensor<?x?x8xf32>) -> tensor<?x?x2x4xf32>
// CHAIN-NEXT:    func.return %y

/// Range(past_len, past_len + seq) from Shape: data, not a size. It becomes an argument that
/// a host shape function computes per call from the symbols, never a constant.
// RUN: %python %S/Inputs/symbolic_models.py range %t.range.onnx
// RUN: dnnc-import --symbolic %t.range.onnx | filecheck %s --check-prefix=RANGE
// RANGE-LABEL: func.func @range_positions(%ids: tensor<?x?xi64>, %past: tensor<?x?x4xf32>,
// RANGE-SAME:    %sized.0.positions: tensor<?xi64> {dnn.shape_function = "range(s3, (s3+s1), 1)"})
// RANGE-SAME:    dnn.symbols = [array<i64: 0, 0>, array<i64: 0, 1>, array<i64: 1, 0>, array<i64: 1, 1>]
// RANGE:         %y = dnn.gather %table[%sized.0.positions] : (tensor<64x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
// RANGE-NEXT:    func.return %y

/// A reshape target read from the values of an input is known only at run time: no
/// expression of the input dimensions gives it, so the import refuses it.
// RUN: %python %S/Inputs/symbolic_models.py data_target %t.data.onnx
// RUN: not dnnc-import --symbolic %t.data.onnx 2>&1 | filecheck %s --check-prefix=DATA
// DATA: error: ONNX Reshape (node '#0 (unnamed)', opset 17): input 1 (shape) must be a constant: it is computed at run time

/// Broadcasting two symbolic sizes that are equal guards only their equality (batch 1 keeps
/// the decision: 1 broadcast against 1 is 1), no "!= 1"; (batch + seq) - seq is batch, and
/// (s1*8) against s1 is not compared for a no-op reshape. Before: "s0 != 1", "s2 != 1",
/// "((s0+s1)-s1) == s0", "(s1*8) != s1" and more, which batch 1 or seq 1 broke.
// RUN: %python %S/Inputs/symbolic_models.py broadcast %t.broadcast.onnx
// RUN: dnnc-import --symbolic %t.broadcast.onnx | filecheck %s --check-prefix=BCAST
// BCAST-LABEL: func.func @broadcast(%x: tensor<?x?x8xf32>, %y: tensor<?x?x8xf32>)
// BCAST-SAME:    dnn.guards = ["s0 == s2", "s1 == s3"]}
// BCAST:         %sum = dnn.binary add %x, %y
// BCAST-NEXT:    %z = dnn.reshape %sum {dnn.dims = ["s0", "(s1*8)"]}
// BCAST-NEXT:    func.return %z
