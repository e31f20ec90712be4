// RUN: dnnc-opt %s --allow-unregistered-dialect | filecheck %s
// RUN: not dnnc-opt %s 2>&1 | filecheck %s --check-prefix=ERR

// CHECK: "foo.bar"() : () -> ()
// ERR: unregistered.mlir:[[# @LINE + 1]]:1: error: unknown op 'foo.bar' (dialect 'foo' is not registered)
"foo.bar"() : () -> ()
