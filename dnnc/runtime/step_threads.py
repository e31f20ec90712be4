"""Which primitive steps run on one OpenMP thread: those too small to gain from a team.

Every oneDNN primitive forks the calling thread's OpenMP team and joins it (dnnc.dnnl.threads);
that costs about 2 µs per primitive at 2 threads, and when another process or another
library's spinning pool holds a core, a join waits for the worker's next time slice
(milliseconds). A decoding step of a transformer (one token: M = 1) is some 60 primitives
of which most take 1-5 µs on one thread (element-wise, normalization, softmax, attention
over a short past): on 2 threads each of them is slower, and the step waits on a barrier
60 times instead of a dozen.

Rule, taken once per plan (dnnc.runtime.plan): a oneDNN step runs on one thread when its
operands span fewer than SMALL_STEP_BYTES bytes and it does fewer than SMALL_STEP_MACS
multiply-adds (``multiply_adds``: matmul, inner product, convolutions; 0 for the others,
whose work their bytes measure); every other step runs with the caller's count. The
executor (dnnc.runtime.context) sets the count around runs of such steps and gives the
caller's back after them; their primitives are created under one thread too (a primitive
runs under the count it was created with). Reference (numpy) steps use no OpenMP.

Measured on the 2-core Zen 5 VM (AVX-512, least time of 300 runs of each step of the BENCH
decoders' token step, bench/generate.py, each plan created and run at 1 and at 2 threads):
element-wise, layer normalization, softmax and concat of 1-40 KB take 1-2.7 µs on one thread
and 2.3-2.5 µs more on two; attention matmuls of 170-680 KB lose 0.97-1.8x on two; matrix-
vector products from 1 MB (a 512x512 inner product, 9.8 -> 7.1 µs) gain 0.52-0.77x.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

SMALL_STEP_BYTES = 1 << 20
"""A step whose operands (read and written, padding included) span fewer bytes runs on one
thread, unless it computes more than SMALL_STEP_MACS: at 1 MiB a matrix-vector product takes
about 10 µs on one thread and gains a quarter on two; at 0.5-0.7 MB it gains nothing."""

SMALL_STEP_MACS = 1 << 20
"""A step doing more multiply-adds runs with the caller's count whatever its bytes (a
convolution of a small image with many channels): 2^20 multiply-adds take ~10 µs on one
AVX-512 core, where a second thread gains more than the fork and join cost."""

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
