// REQUIRES: libdnnl
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(-4, 4, dtype=np.float32).reshape(2, 4)); np.savez('%t/all.npz', x=np.ones((2, 4), np.float32))"
// RUN: %python -m dnnc.tools.run %s --input x=%t/x.npy | filecheck %s --check-prefix=NPY
// RUN: %python -m dnnc.tools.run %s --inputs %t/all.npz | filecheck %s --check-prefix=NPZ
// RUN: %python -m dnnc.tools.run %s --seed 3 --check | filecheck %s --check-prefix=SEED

/// Inputs from a .npy file, from an .npz archive by name, or random from a seed.
// NPY: result0: float32[2, 4] min 0 max 3 mean 0.75
// NPZ: result0: float32[2, 4] min 1 max 1 mean 1
// SEED: check result0: {{.*}}: ok
func.func @relu(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = dnn.eltwise relu %x : tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
