"""Layer 8, `driver`: import -> optimize -> lower -> executable, and everything that reruns it.

The pass registry and named pipelines (`registry`, `pipelines`), dynamic-shape
re-specialisation (`dynamic`), per-shape ONNX re-import (`onnx_shapes`), compiled models on disk
(`saved`) and the ONNX backend-test adapter (`onnx_backend`). See docs/architecture.md.
"""
