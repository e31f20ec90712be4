"""dnnc.target: what oneDNN offers on this CPU, asked of oneDNN, never assumed.

The assertions are keyed on what the host is (its /proc/cpuinfo flags, the effective ISA
oneDNN reports): they hold on an AVX2-only, an AVX-512 and an AVX-512 bf16/AMX host alike,
and under ``ONEDNN_MAX_CPU_ISA``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dnnc
from dnnc.core.kinds import DataType
from dnnc.dnnl.capi import dnnl_cpu_isa_t
from dnnc.dnnl.primitives import HANDLERS
from dnnc.target import (
    COMPUTE_KINDS,
    PROBED_KINDS,
    computes_in,
    implementation,
    runs_natively,
    target_info,
)
from dnnc.target.host import MAX_ISA_VARIABLE, cpu_description, isa_includes

ISA_NAMES = {isa.name.removeprefix("dnnl_cpu_isa_") for isa in dnnl_cpu_isa_t}


def isa_in_subprocess(cap: str | None) -> str:
    """The effective ISA a fresh process reports with ONEDNN_MAX_CPU_ISA set to `cap`."""
    env = {k: v for k, v in os.environ.items() if k != MAX_ISA_VARIABLE}
    if cap is not None:
        env[MAX_ISA_VARIABLE] = cap
    code = "from dnnc.target import target_info; print(target_info().isa)"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


def test_target_info_is_oneDNNs_answer() -> None:
    info = target_info()
    assert info.onednn_version.startswith("3.")
    assert info.isa in ISA_NAMES
    assert info.max_isa == (os.environ.get(MAX_ISA_VARIABLE) or None)
    assert dnnc.target_info() is info  # once per process
    assert f"effective ISA: {info.isa}" in info.summary()


def test_isa_includes_follows_the_isa_hierarchy() -> None:
    assert isa_includes("avx2")  # every CPU dnnc supports
    assert isa_includes(target_info().isa)
    if isa_includes("avx512_core_bf16"):
        assert isa_includes("avx512_core")


def test_a_cap_lowers_the_effective_isa() -> None:
    """ONEDNN_MAX_CPU_ISA=AVX2 gives avx2 on any x86-64 CPU dnnc supports."""
    assert isa_in_subprocess("AVX2") == "avx2"


def test_uncapped_isa_follows_the_cpu_flags() -> None:
    _, flags = cpu_description()
    isa = isa_in_subprocess(None)
    if "avx512_bf16" in flags:
        assert isa.startswith(("avx512_core_bf16", "avx512_core_fp16", "avx512_core_amx")), isa
    elif "avx512f" in flags and "avx512bw" in flags:
        assert isa.startswith("avx512_core"), isa
    else:
        assert isa.startswith("avx2"), isa


def test_bf16_compute_exactly_where_the_isa_has_bf16_instructions() -> None:
    """oneDNN 3.2 has bf16 compute kernels on AVX-512 and newer (emulated on avx512_core,
    native with avx512_bf16 and AMX), none on plain AVX2; dnnc counts only the native ones."""
    info = target_info()
    assert info.bf16_compute == computes_in(DataType.BF16)
    if info.isa == "avx2":
        assert not info.bf16_compute
        assert not any(runs_natively(kind, DataType.BF16) for kind in COMPUTE_KINDS)
    if info.isa.startswith("avx512_core"):
        assert all(runs_natively(kind, DataType.BF16) for kind in COMPUTE_KINDS)
        assert info.bf16_compute == isa_includes("avx512_core_bf16")
    for kind in COMPUTE_KINDS:
        assert runs_natively(kind, DataType.F32)


def test_casts_between_f32_and_bf16_run_on_every_cpu() -> None:
    assert implementation("reorder", DataType.BF16) is not None


@pytest.mark.parametrize("kind", PROBED_KINDS)
def test_every_kind_runs_in_f32(kind: str) -> None:
    found = implementation(kind, DataType.F32)
    assert found, kind
    assert runs_natively(kind, DataType.F32) == (not found.startswith("ref"))


def test_every_handler_kind_has_a_probe() -> None:
    assert set(PROBED_KINDS) == set(HANDLERS)


@pytest.mark.skipif(not isa_includes("avx2"), reason="oneDNN 3.2's int8 kernels need AVX2")
@pytest.mark.parametrize("data_type", [DataType.S8, DataType.U8])
@pytest.mark.parametrize("kind", ["convolution", "matmul", "inner_product", "pooling"])
def test_int8_is_asked_as_an_int8_kernel_is_given(kind: str, data_type: DataType) -> None:
    """s8 weights under u8 activations too, activations channels-last: the answer is a real
    kernel (in plain nchw, oneDNN 3.2 convolves int8 on ref:any only)."""
    found = implementation(kind, data_type)
    assert found is not None and not found.startswith("ref"), found


def test_no_implementation_is_none_not_an_error() -> None:
    """oneDNN has no s8 LRN anywhere: None, and not native."""
    assert implementation("lrn", DataType.S8) is None
    assert not runs_natively("lrn", DataType.S8)


def test_unknown_kind_is_refused_with_the_valid_ones() -> None:
    with pytest.raises(ValueError, match=r"no probe for primitive kind 'rnn'.*convolution"):
        implementation("rnn", DataType.F32)


def test_cpu_description_reads_model_name_and_isa_flags(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: fpu avx2 fma "
        "avx512f avx512_bf16 sse4_2\n\nprocessor\t: 1\n"
    )
    assert cpu_description(cpuinfo) == ("Some CPU", ("avx2", "fma", "avx512f", "avx512_bf16"))
    name, flags = cpu_description(tmp_path / "missing")
    assert flags == () and name


def test_dnnc_run_version_prints_what_it_found() -> None:
    run = [sys.executable, "-m", "dnnc.tools.run", "--version"]
    text = subprocess.run(run, check=True, capture_output=True, text=True).stdout
    assert text.startswith("dnnc ") and f"effective ISA: {target_info().isa}" in text
    found = json.loads(
        subprocess.run([*run, "--json"], check=True, capture_output=True, text=True).stdout
    )
    assert found["isa"] == target_info().isa
    assert found["implementations"]["convolution"]["f32"] == implementation(
        "convolution", DataType.F32
    )


def test_every_post_op_anchor_has_a_rule() -> None:
    """The legality table covers exactly the ops of the PostOpAnchor interface, and the
    accumulating subset (a residual add may become a sum post-op) is pinned."""
    from dnnc.dialects.dnn import DNN, PostOpAnchor
    from dnnc.target.post_op_rules import ANCHORS, PostOpKind

    anchors = {op for op in DNN.operations if issubclass(op, PostOpAnchor)}
    assert set(ANCHORS) == anchors
    names = {op.name for op in anchors}
    assert names == {
        "dnn.conv2d",
        "dnn.deconv2d",
        "dnn.matmul",
        "dnn.inner_product",
        "dnn.pool",
        "dnn.binary",
        "dnn.qconv2d",
    }
    accumulating = {op.name for op, rule in ANCHORS.items() if PostOpKind.SUM in rule.kinds}
    assert accumulating == {
        "dnn.conv2d",
        "dnn.deconv2d",
        "dnn.matmul",
        "dnn.inner_product",
        "dnn.qconv2d",
    }


def test_roles_follow_each_operand_structure() -> None:
    """roles_of finds operand positions with DnnOp.operand_indices, which reads them once per
    op class and operand structure: matmuls with a bias or with a post-op argument (three
    operands in two segmentations) and with both bind the roles their named operands are."""
    from xdsl.dialects.builtin import TensorType, f32
    from xdsl.ir import Block

    from dnnc.core.kinds import BinaryAlg, BinaryPostOp
    from dnnc.dialects.dnn import MatmulOp
    from dnnc.target.kernel_table import roles_of

    block = Block(arg_types=[TensorType(f32, s) for s in ([4, 8], [8, 16], [16], [4, 16])])
    lhs, rhs, bias, residual = block.args
    add = [BinaryPostOp(BinaryAlg.ADD)]
    for op in (
        MatmulOp(lhs, rhs),
        MatmulOp(lhs, rhs, bias),
        MatmulOp(lhs, rhs, post_ops=add, post_args=[residual]),
        MatmulOp(lhs, rhs, bias, post_ops=add, post_args=[residual]),
    ):
        named = {name: value for name, value, is_result in op.named_values() if not is_result}
        bound = {role: op.operands[index] for role, index in roles_of(op)}
        assert bound == {
            {"lhs": "src", "rhs": "weights", "bias": "bias", "post_args[0]": "post_arg_0"}[n]: v
            for n, v in named.items()
        }
