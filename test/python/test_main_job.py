"""The README's first command (`make run`) runs examples/main_job.py: it must keep working,
against the public API as it is (it once called an attribute the executor had dropped)."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

MAIN_JOB = Path(__file__).resolve().parents[2] / "examples" / "main_job.py"


def test_main_job_runs_and_checks_out(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(MAIN_JOB)], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "check vs reference interpreter" in done.stdout and ": ok" in done.stdout
    assert "check vs ONNX Runtime" in done.stdout
    out = tmp_path / "out"
    assert (out / "small_cnn.mlir").is_file()
    picture = ElementTree.parse(out / "small_cnn.svg").getroot()
    texts = [e.text or "" for e in picture.iter("{http://www.w3.org/2000/svg}text")]
    assert sum("= dnn.conv2d" in text for text in texts) == 6  # the six convolutions
    assert any(text.startswith("post-ops") for text in texts)  # fusion's decisions shown
    dump_bytes = ir_dump_bytes(out / "small_cnn.mlir")
    # about 6 kB a pass; megabytes if the weights were printed
    assert 0 < dump_bytes < 200_000, f"--print-ir-after-all printed {dump_bytes} bytes"


def ir_dump_bytes(ir: Path) -> int:
    """The size of `dnnc-opt --print-ir-after-all` over the whole pipeline (constants elided
    by default: printed in full, the folded weights alone are megabytes)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "dnnc.tools.opt",
            str(ir),
            "-p",
            "dnn-optimize,dnn-to-onednn",
            "--print-ir-after-all",
            "-o",
            "/dev/null",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return len(done.stderr.encode())
