"""Layer 3, `ir`: what is needed to read and write the dialects of `dnnc.dialects`.

The model's own names (`names`), parsing/printing/verification (`text`), the payloads of weight
and constant ops (`weights`), SSA value helpers (`values`) and decision attributes
(`decisions`). See docs/architecture.md.
"""
