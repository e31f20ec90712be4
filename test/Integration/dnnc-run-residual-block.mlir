// REQUIRES: libdnnl
// RUN: %python -m dnnc.tools.run %S/../../examples/residual_block.mlir --check | filecheck %s

/// The example's weights are read from the .npz beside it, whatever the working directory.
// CHECK: result0: float32[1, 16, 16, 16]
// CHECK: check result0: {{.*}}: ok
