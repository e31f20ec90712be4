"""The host as oneDNN sees it: effective ISA, oneDNN version, CPU name and ISA flags."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from dnnc.core.kinds import DataType

MAX_ISA_VARIABLE = "ONEDNN_MAX_CPU_ISA"
"""oneDNN's environment variable capping the ISA its kernels may use."""

ISA_FLAGS = (
    "avx2",
    "fma",
    "avx_vnni",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
)
"""The /proc/cpuinfo flags that decide which oneDNN kernels a CPU can run."""


@dataclass(frozen=True)
class TargetInfo:
    """What dnnc found about this host (``dnnc-run --version``, ``dnnc.target_info()``)."""

    onednn_version: str
    isa: str
    """oneDNN's effective ISA (``avx2``, ``avx512_core``, ``avx512_core_bf16``, ...)."""
    max_isa: str | None
    """The ``ONEDNN_MAX_CPU_ISA`` cap in force, if any."""
    cpu: str
    cpu_flags: tuple[str, ...]
    """The entries of ISA_FLAGS the CPU has (whatever the cap)."""
    bf16_compute: bool
    """Whether this CPU computes natively in bf16 (dnnc.target.computes_in)."""
    implementations: dict[str, dict[str, str | None]]
    """Per primitive kind and data type: oneDNN's implementation here, None if it has none."""

    def summary(self) -> str:
        """A few lines for people, in the style of ORT's get_device / OpenVINO's device name."""
        cap = f" (capped by {MAX_ISA_VARIABLE}={self.max_isa})" if self.max_isa else ""
        lines = [
            f"oneDNN {self.onednn_version}, CPU engine",
            f"CPU: {self.cpu}",
            f"CPU flags: {' '.join(self.cpu_flags) or 'none of ' + ', '.join(ISA_FLAGS)}",
            f"effective ISA: {self.isa}{cap}",
            "bf16 compute: "
            + ("yes" if self.bf16_compute else "no (dnn-assign-precision keeps f32)"),
            "implementations (plain layouts; - = none):",
        ]
        width = max(len(kind) for kind in self.implementations)
        for kind, by_type in self.implementations.items():
            cells = "  ".join(f"{dt}={impl or '-'}" for dt, impl in by_type.items())
            lines.append(f"  {kind:<{width}}  {cells}")
        return "\n".join(lines)


def isa_name(value: int) -> str:
    """The name of a ``dnnl_cpu_isa_t`` value (``avx512_core_bf16``), its number if unknown."""
    from dnnc.dnnl.capi import dnnl_cpu_isa_t

    try:
        return dnnl_cpu_isa_t(value).name.removeprefix("dnnl_cpu_isa_")
    except ValueError:
        return f"isa {value:#x}"


@cache
def _effective_isa_value() -> int:
    from dnnc.dnnl.capi import prototype

    return int(prototype("dnnl_get_effective_cpu_isa")())


def effective_isa() -> str:
    """oneDNN's effective ISA on this host (the CPU's, or lower under ONEDNN_MAX_CPU_ISA)."""
    return isa_name(_effective_isa_value())


def onednn_version() -> str:
    """The loaded oneDNN's version, ``3.2.0``."""
    from dnnc.dnnl.capi import version

    return ".".join(map(str, version()))


def isa_includes(name: str) -> bool:
    """Whether the effective ISA includes oneDNN's ISA `name` (``avx512_core_bf16``): each
    ``dnnl_cpu_isa_t`` value is the set of its instruction-set bits."""
    from dnnc.dnnl.capi import dnnl_cpu_isa_t

    wanted = int(dnnl_cpu_isa_t[f"dnnl_cpu_isa_{name}"])
    return _effective_isa_value() & wanted == wanted


def has_vnni() -> bool:
    """Whether the effective ISA sums u8 x s8 products in s32 (AVX-512 or AVX VNNI). Without
    it oneDNN's int8 convolutions use vpmaddubsw, whose s16 pair sums saturate: u8 sources
    above 127 give wrong results, and for s8 sources oneDNN halves the weights, losing
    their last bit (test/python/runtime/test_int8_primitives.py)."""
    return isa_includes("avx512_core_vnni") or isa_includes("avx2_vnni")


Vnni = Literal["auto", "yes", "no"]
"""A pass option taking the CPU as having VNNI or not: ``auto`` asks has_vnni; ``yes`` and
``no`` make a pass's result independent of the CPU (for tests)."""


def vnni_enabled(option: Vnni) -> bool:
    """Whether a pass with the ``vnni`` option ``option`` takes the CPU as having VNNI."""
    return has_vnni() if option == "auto" else option == "yes"


def cpu_description(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[str, tuple[str, ...]]:
    """The CPU's model name and which of ISA_FLAGS it has (from /proc/cpuinfo on Linux)."""
    name, flags = platform.processor() or platform.machine(), set[str]()
    try:
        text = cpuinfo.read_text()
    except OSError:
        return name, ()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            name = value.strip()
        elif key.strip() == "flags":
            flags = set(value.split())
            break
    return name, tuple(flag for flag in ISA_FLAGS if flag in flags)


@cache
def target_info() -> TargetInfo:
    """This host, found once per process (module docstring of dnnc.target). It probes every
    kind in three data types (about 0.25 s): passes ask for what they need instead."""
    from dnnc.target.implementations import PROBED_KINDS, computes_in, implementation

    cpu, flags = cpu_description()
    types = (DataType.F32, DataType.BF16, DataType.S8)
    return TargetInfo(
        onednn_version=onednn_version(),
        isa=effective_isa(),
        max_isa=os.environ.get(MAX_ISA_VARIABLE) or None,
        cpu=cpu,
        cpu_flags=flags,
        bf16_compute=computes_in(DataType.BF16),
        implementations={
            kind: {dt.value: implementation(kind, dt) for dt in types} for kind in PROBED_KINDS
        },
    )


@cache
def memory_bytes() -> int:
    """The host's physical memory in bytes: what one run's arena, scratchpad, inputs and
    outputs must fit in (dnnc.runtime.plan.check_fits)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
