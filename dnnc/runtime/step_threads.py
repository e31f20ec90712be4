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
whose work their bytes measure), a convolution fewer than SMALL_CONVOLUTION_MACS; a reorder
that transposes its innermost dimension (``transposes_innermost``: it gathers element by
element) counts each element as an f32's 4 bytes. Every other step's primitive is created
under the count of the thread building the plan and runs under it, or the caller's count if
fewer. The executor (dnnc.runtime.context) sets the count around runs of such steps and
gives the caller's back after them. Reference (numpy) steps use no OpenMP.

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

A step alone between two that run on the team pays for more than its own time: it reads
what both threads wrote (half of it from the other core's cache), and the team's next step
reads what it wrote, all from one core's. Measured in MobileNetV2 (same VM, least time of
1,500 runs of a depthwise convolution and the 1x1 convolutions around it, the middle one on
one thread or on two): depthwise convolutions of 0.25-0.42 M multiply-adds, which alone tie
or lose 0.9-3 µs on two threads, cost their neighbours more when on one: 3-19 µs more per
trio in f32 (192x28x28 stride 2: 65 -> 46 µs; 960x7x7: 100 -> 93 µs), 0.3-5.6 µs in int8
(192x28x28: 33.5 -> 27.9 µs), hence SMALL_CONVOLUTION_MACS. An int8 MobileNetV2's or
ResNet-50's input, quantized in NCHW and reordered to NHWC (3 channels innermost), takes 37
µs on one thread and 23 on two (150 KB each way); BERT's int8 key transpose (128x12x64 ->
12x64x128, 98 KB each way) 23.5 and 16 µs; reorders that keep the innermost dimension
lose on two (its query and value transposes, 98 KB: 5.4 -> 14 µs; dequantizing 128x768
u8 to f32: 8.2 -> 13 µs), so only transposing ones count per element.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dnnc.runtime.program import Call, MemorySpec

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

SMALL_CONVOLUTION_MACS = 1 << 17
"""A convolution doing as many multiply-adds or more runs with the caller's count: between
convolutions on two threads, one on one thread costs its neighbours' cache traffic
(module docstring: MobileNetV2's depthwise convolutions of 0.25-0.42 M)."""

F32_BYTES = 4
"""What a transposing reorder counts per element (module docstring)."""

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


def _innermost(memory: MemorySpec) -> int | None:
    """The logical dimension whose neighbouring elements are adjacent in memory (of extent
    more than 1: a dimension of 1 moves nothing); None for a single element."""
    layout, shape = memory.layout, memory.shape
    physical = [d for d, size in reversed(layout.blocks) if size > 1] + list(reversed(layout.order))
    return next((d for d in physical if shape[d] > 1), None)


def transposes_innermost(call: Call) -> bool:
    """Whether a reorder reads its destination's adjacent elements from distant places of its
    source: the destination's innermost dimension (through a transpose's ``permutation``:
    destination dimension i is source dimension permutation[i]) is not the source's."""
    if call.kind != "reorder":
        return False
    memories = {o.role: o.memory for o in (*call.ins, *call.outs)}
    inner = _innermost(memories["dst"])
    permutation = call.params.get("permutation")
    if inner is not None and isinstance(permutation, Sequence):
        inner = int(permutation[inner])
    return inner != _innermost(memories["src"])


def runs_alone(call: Call) -> bool:
    """Whether a oneDNN step runs on one thread (module docstring's rule)."""
    operands = (*call.ins, *call.outs)
    if transposes_innermost(call):
        size = sum(o.memory.layout.num_elements(o.memory.shape) for o in operands) * F32_BYTES
    else:
        size = sum(o.memory.nbytes for o in operands)
    work = multiply_adds(call.kind, {o.role: tuple(map(int, o.memory.shape)) for o in operands})
    limit = SMALL_CONVOLUTION_MACS if call.kind == "convolution" else SMALL_STEP_MACS
    return size < SMALL_STEP_BYTES and work < limit
