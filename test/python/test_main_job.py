"""The README's first command (`make run`) runs examples/main_job.py: it must keep working,
against the public API as it is (it once called an attribute the executor had dropped)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MAIN_JOB = Path(__file__).resolve().parents[2] / "examples" / "main_job.py"


def test_main_job_runs_and_checks_out(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(MAIN_JOB)], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "check vs reference interpreter" in done.stdout and ": ok" in done.stdout
    assert "check vs ONNX Runtime" in done.stdout
    assert (tmp_path / "out" / "small_cnn.mlir").is_file()
