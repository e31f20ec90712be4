"""Support shared by the tests and the benchmarks (installed with dnnc, so neither edits
sys.path): graphs written as `dnn` IR with their weights (`graphs`), random graphs for
differential tests (`graph_generator`), dynamic-shape graphs (`dynamic_graphs`), real networks
built with torch and exported to ONNX (`model_zoo`), the peer engines' runners (`engines`) and
timing (`timing`). It imports dnnc; dnnc never imports it."""
