"""Layer 8, `driver`: import -> optimize -> lower -> executable, and everything that reruns it.

The pass registry and named pipelines (`registry`, `pipelines`), dynamic-shape functions
traced once per program template (`dynamic`), ONNX models with shape arithmetic on `?`
dimensions or input values (`onnx_shapes`), compiled models on disk
(`saved`) and the ONNX backend-test adapter (`onnx_backend`). See docs/architecture.md.
"""
