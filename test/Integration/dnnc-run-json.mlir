// REQUIRES: libdnnl
// RUN: %python -m dnnc.tools.run %s --check --json --benchmark 2 --profile --report-memory | filecheck %s

/// --json: one object with the outputs, the check, the benchmark, the profile and the memory.
// CHECK: "function": "top_k_of_sum"
// CHECK: "outputs": [
// CHECK: "name": "result0"
// CHECK: "dtype": "float32"
// CHECK: "name": "result1"
// CHECK: "dtype": "int64"
// CHECK: "check": [
// CHECK: "ok": true
// CHECK: "ok": true
// CHECK: "benchmark": {
// CHECK-NEXT: "runs": 2,
// CHECK-NEXT: "median_ms":
// CHECK: "profile": {
// CHECK-NEXT: "steps": [
// CHECK: "library": "onednn",
// CHECK-NEXT: "kind": "sum",
// CHECK: "library": "reference",
// CHECK-NEXT: "kind": "top_k",
// CHECK: "reorders": {
// CHECK-NEXT: "count": 0,
// CHECK-NEXT: "bytes": 0,
// CHECK: "memory": {
// CHECK-NEXT: "planned_bytes":
// CHECK-NEXT: "lower_bound_bytes":
// CHECK-NEXT: "arena_bytes":
func.func @top_k_of_sum(%a: tensor<2x16xf32>, %b: tensor<2x16xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %s = dnn.sum %a, %b : tensor<2x16xf32>
  %v, %i = dnn.top_k %s {k = 3 : i64} : (tensor<2x16xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  func.return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}
