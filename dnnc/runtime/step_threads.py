"""Which primitive steps run on one OpenMP thread: those too small to gain from a team.

Every oneDNN primitive forks the calling thread's OpenMP team and joins it (dnnc.dnnl.threads);
that costs about 2 µs per primitive at 2 threads, and when another process or another
library's spinning pool holds a core, a join waits for the worker's next time slice
(milliseconds). A decoding step of a transformer (one token: M = 1) is dozens of
primitives of which most take 1-5 µs on one thread (element-wise, normalization, softmax,
attention over a short past): on 2 threads each of them is slower, and the step waits on a
barrier after each (bench/generate.py's BENCH decoders, a token after a 32-token prompt: 22
of GPT-2's 39 primitives run on one thread by this rule, 117 of LLaMA's 138).

Rule, taken once per plan (dnnc.runtime.plan): a oneDNN step runs on one thread when its
operands span fewer than SMALL_STEP_BYTES bytes and it does fewer than SMALL_STEP_MACS
multiply-adds (``multiply_adds``: matmul, inner product, convolutions; 0 for the others,
whose work their bytes measure); every other step's primitive is created under the count
of the thread building the plan and runs under it, or the caller's count if fewer. The
executor (dnnc.runtime.context) sets the count around runs of such steps and gives the
caller's back after them. Reference (numpy) steps use no OpenMP.

Measured on the 2-core Zen 5 VM (AVX-512), least time of 200-300 runs of each step, its
plan created and run at 1 and at 2 threads: in the BENCH decoders' token step
(bench/generate.py), element-wise, layer normalization, softmax and concat of 1-40 KB take
1-2.7 µs on one thread and 2.3-2.5 µs more on two, attention matmuls of 170-680 KB lose
0.97-1.8x on two, matrix-vector products gain 0.52-0.77x from 1 MB (a 512x512 inner product,
9.8 -> 7.1 µs) and lose 1.28x at 0.5 MB; in MobileNetV2, depthwise convolutions gain on two
threads from 0.6 M multiply-adds (14 -> 12 µs; 1 M: 22 -> 16 µs) and lose below 0.43 M
(8.4 -> 10 µs), its global pooling (256 KB) loses 2.7 -> 3.9 µs; BERT's layer normalization
of 128x768 (790 KB) gains 10.6 -> 9.1 µs; ResNet-50's poolings of 0.4 and 1 MB lose 1.1-1.3
µs on two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SMALL_STEP_BYTES = 768 << 10
"""A step whose operands (read and written, padding included) span fewer bytes runs on one
thread, unless it does SMALL_STEP_MACS multiply-adds or more: streaming 768 KiB takes some
5 µs on one thread, about what a second thread saves minus its fork and join (measurements
in the module docstring: matrix-vector products gain nothing at 0.5-0.7 MB, a layer
normalization of 790 KB gains a seventh)."""

SMALL_STEP_MACS = 1 << 19
"""A step doing as many multiply-adds or more runs with the caller's count whatever its
bytes (a depthwise convolution of many channels: 0.6 M take 14 µs on one thread and gain on
two, 0.43 M lose)."""

OperandShapes = dict[str, tuple[int, ...]]
"""A step's operand shapes by role (``src``, ``weights``, ``dst``, ...)."""


def multiply_adds(kind: str, shapes: OperandShapes) -> int:
    """The multiply-adds of a oneDNN primitive of ``kind`` on operands of ``shapes``: each
    destination element's reduction (a matmul's K, an inner product's input features, a
    convolution's input channels of its group times its window; a deconvolution's per
    source element); 0 for kinds that do one operation or a few per element."""
    if kind == "matmul":
        return math.prod(shapes["dst"]) * shapes["src"][-1]
    if kind in ("inner_product", "convolution"):  # weights: [(G,) OC(/G), IC(/G), *window]
        dst = shapes["dst"]
        return math.prod(dst) * math.prod(shapes["weights"]) // dst[1]
    if kind == "deconvolution":  # per source element: OC(/G) times the window
        src = shapes["src"]
        return math.prod(src) * math.prod(shapes["weights"]) // src[1]
    return 0


def runs_alone(kind: str, shapes: OperandShapes, operand_bytes: Sequence[int]) -> bool:
    """Whether a oneDNN step runs on one thread (module docstring's rule); ``operand_bytes``:
    each operand's buffer size."""
    return sum(operand_bytes) < SMALL_STEP_BYTES and multiply_adds(kind, shapes) < SMALL_STEP_MACS
