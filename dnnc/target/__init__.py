"""What oneDNN offers on this CPU: one place that knows the target.

``target_info()`` describes the host once per process (the effective ISA as oneDNN reports
it, which honours ``ONEDNN_MAX_CPU_ISA``; the oneDNN version; the CPU's name and ISA flags).
``implementation(kind, data_type, layout)`` names the implementation oneDNN gives a small
primitive of that kind here (``brgconv:avx512_core``, ``gemm:jit``, ``ref:any``), or None
when it has none; ``runs_natively`` says whether that is a real (non-reference) kernel,
``computes_in``
whether every compute kind (convolution, matmul, inner product) runs natively in a type,
``weights_layout`` the layout oneDNN packs a primitive's weights into.
Both are found by asking oneDNN (a tiny primitive descriptor each), never from a hand-written
ISA table. Kernel selection, precision assignment, ``dnnc-run --version`` and the tests ask
here.

The answers hold for the whole process: oneDNN fixes its ISA on first use.
"""

from dnnc.target.host import TargetInfo, effective_isa, onednn_version, target_info
from dnnc.target.implementations import (
    COMPUTE_KINDS,
    PROBED_KINDS,
    computes_in,
    implementation,
    runs_natively,
    weights_layout,
)

__all__ = [
    "COMPUTE_KINDS",
    "PROBED_KINDS",
    "TargetInfo",
    "computes_in",
    "effective_isa",
    "implementation",
    "onednn_version",
    "runs_natively",
    "target_info",
    "weights_layout",
]
