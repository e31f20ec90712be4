/// One case per rule of the symbolic-shape contract (docs/dialect.md, "Symbolic dimensions",
/// dnnc/dialects/dnn/symbolic.py): the message says what is wrong and what would be valid.
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: dnnc-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=NOMODULE
// NOMODULE-NOT: builtin.module


/// dnn.symbols binds every ? dimension of the caller's arguments, in order.
// CHECK: dnn.symbols must bind every ? dimension of the caller's arguments, in order: [array<i64: 0, 0>, array<i64: 0, 1>]
func.func @negative_symbols_incomplete(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> attributes {dnn.symbols = [array<i64: 0, 0>]} {
  func.return %x : tensor<?x?x8xf32>
}

// -----

/// An expression reads only bound symbols.
// CHECK: '(s0*s1)' reads s1: only 1 symbols are bound
func.func @negative_dims_unbound(%x: tensor<?x8xf32>) -> tensor<?xf32> attributes {dnn.symbols = [array<i64: 0, 0>]} {
  %y = dnn.reshape %x {dnn.dims = ["(s0*s1)"]} : (tensor<?x8xf32>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}

// -----

/// A static result dimension is an integer, the same in dnn.dims and in the type.
// CHECK: 'dnn.reshape' dnn.dims[1] is 's0' for a static size 8
func.func @negative_dims_static(%x: tensor<?x8xf32>) -> tensor<?x8xf32> attributes {dnn.symbols = [array<i64: 0, 0>]} {
  %y = dnn.reshape %x {dnn.dims = ["s0", "s0"]} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  func.return %y : tensor<?x8xf32>
}

// -----

/// A guard is a comparison.
// CHECK: 's0 + 1' is not a comparison
func.func @negative_guard_not_comparison(%x: tensor<?xf32>) -> tensor<?xf32> attributes {dnn.symbols = [array<i64: 0, 0>], dnn.guards = ["s0 + 1"]} {
  func.return %x : tensor<?xf32>
}

// -----

/// A shape function gives a 1-d i64 tensor, from an argument after the caller's.
// CHECK: argument 1: dnn.shape_function range(...) and sizes(...) give a 1-d i64 tensor, true(d0, ..., dn) an i1 tensor of rank n + 1
func.func @negative_shape_function_type(%x: tensor<?xf32>, %p: tensor<?xf32> {dnn.shape_function = "range(0, s0, 1)"}) -> tensor<?xf32> attributes {dnn.symbols = [array<i64: 0, 0>]} {
  func.return %x : tensor<?xf32>
}

// -----

/// Only the host shape functions dnnc knows.
// CHECK: 'arange(0, s0)' is not a shape function: expected one of range(...), true(...), sizes(...)
func.func @negative_shape_function_unknown(%x: tensor<?xf32>, %p: tensor<?xi64> {dnn.shape_function = "arange(0, s0)"}) -> tensor<?xf32> attributes {dnn.symbols = [array<i64: 0, 0>]} {
  func.return %x : tensor<?xf32>
}

// -----

/// dnn.dims needs the symbols it reads bound.
// CHECK: 'dnn.reshape' has dnn.dims: the function needs dnn.symbols
func.func @negative_dims_without_symbols(%x: tensor<?x8xf32>) -> tensor<?xf32> {
  %y = dnn.reshape %x {dnn.dims = ["(s0*8)"]} : (tensor<?x8xf32>) -> tensor<?xf32>
  func.return %y : tensor<?xf32>
}
