"""Layer 2, `ir`: the `dnn` and `onednn` dialects and what is needed to read and write them.

The dialects (`dnn/`, `onednn`), their element types (`types`), the model's own names (`names`),
parsing/printing/verification (`text`), the dialect list (`dialects`) and the payloads of weight
and constant ops (`weights`). See docs/architecture.md.
"""
