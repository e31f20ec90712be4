"""Layer 0, `core`: vocabulary every other layer shares and that depends on nothing of dnnc.

Errors and remarks (`diagnostics`), the enums of algorithms, post-ops and data types (`kinds`),
memory layouts (`layouts`), shape arithmetic (`shapes`) and the packing of buffers with
lifetimes into one arena (`arena`). See docs/architecture.md.
"""
