// REQUIRES: libdnnl
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/wrong.npy', np.zeros((3, 4), np.float64))"
// RUN: not %python -m dnnc.tools.run %s --input x=%t/wrong.npy 2>&1 | filecheck %s --check-prefixes=COMMON,SHAPE
// RUN: not %python -m dnnc.tools.run %s --input y=%t/wrong.npy 2>&1 | filecheck %s --check-prefixes=COMMON,NAME
// RUN: not %python -m dnnc.tools.run %s --input x 2>&1 | filecheck %s --check-prefixes=COMMON,SYNTAX
// RUN: not %python -m dnnc.tools.run %s --function nope 2>&1 | filecheck %s --check-prefixes=COMMON,FUNCTION
// RUN: not %python -m dnnc.tools.run %t/absent.mlir 2>&1 | filecheck %s --check-prefixes=COMMON,FILE
// RUN: not %python -m dnnc.tools.run %s --benchmark 2 --frobnicate 2>&1 | filecheck %s --check-prefixes=COMMON,OPTION

/// Every user error is one line on stderr and exit status 1, never a traceback.
// COMMON-NOT: Traceback
// SHAPE: error: input 'x' is float64[3, 4]; expected @relu(x: float32[2, 4]) -> (result0: float32[2, 4])
// NAME: error: unknown input(s) y: the inputs are x
// SYNTAX: error: --input 'x': expected NAME=FILE.npy
// FUNCTION: error: no function @nope in the module (functions: @relu)
// FILE: error: could not open input file '{{.*}}absent.mlir': No such file or directory
// OPTION: error: unrecognized arguments: --frobnicate (see dnnc-run --help)
func.func @relu(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = dnn.eltwise relu %x : tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
