"""dnnc: a deep-learning graph compiler on xDSL that executes with oneDNN CPU primitives."""
