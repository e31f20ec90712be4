"""Layer 1, `dnnl`: oneDNN through ctypes, and nothing about dnnc's IR.

`capi` declares the C functions, `objects` wraps handles (engine, stream, memory, primitive) in
Python objects that free them exactly once, and `primitives` builds the primitive of each kernel
call from plain Python values. See docs/architecture.md.
"""
