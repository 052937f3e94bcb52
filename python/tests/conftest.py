# SPDX-License-Identifier: GPL-2.0-only
"""Tiny runs of every kind, made once per test session with the built runner.

ctest passes the binaries (AIFABRIC_RUNNER, AIFABRIC_SWEEP); run by hand, the tests use
build/ (AIFABRIC_BUILD_DIR overrides it): ``PYTHONPATH=python /usr/bin/python3 -m pytest python``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("AIFABRIC_BUILD_DIR", ROOT / "build"))
RUNNER = os.environ.get("AIFABRIC_RUNNER", str(BUILD / "ai-fabric-runner"))
SWEEP = os.environ.get("AIFABRIC_SWEEP", str(BUILD / "ai-fabric-sweep"))
SCENARIOS = ROOT / "scenarios"


def _run(args: List[str]) -> None:
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, f"{' '.join(args)} failed:\n{proc.stdout}"


def _runner(scenario: str, out: Path, sets: List[str]) -> Path:
    args = [RUNNER, str(SCENARIOS / scenario), "--quiet", "--out", str(out)]
    for s in sets:
        args += ["--set", s]
    _run(args)
    return out


@pytest.fixture(scope="session")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default scenario (its five fabrics) on 2 servers (16 GPUs), 2 steps of 1 MiB."""
    out = tmp_path_factory.mktemp("default") / "run"
    return _runner(
        "default.json",
        out,
        ["topology.servers=2", "workload.steps=2", "workload.bytes=1048576"],
    )


@pytest.fixture(scope="session")
def flow_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cc-comparison.json's flows (six congestion controls) on 16 hosts for 0.5 ms."""
    out = tmp_path_factory.mktemp("flows") / "run"
    return _runner(
        "cc-comparison.json",
        out,
        ["topology.servers=16", "topology.leaf_radix=8", "workload.flows.duration_ms=0.5"],
    )


@pytest.fixture(scope="session")
def training_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Llama-3-8B's shape cut to 2 layers, TP 2 x DP 2 on 2 servers of 2 GPUs, one step."""
    out = tmp_path_factory.mktemp("training") / "run"
    return _runner(
        "training-llama3-8b.json",
        out,
        [
            "workload.steps=1",
            "workload.parallelism.microbatches=1",
            "workload.model_shape.layers=2",
            "topology.gpus_per_server=2",
            "workload.parallelism.tp=2",
        ],
    )


@pytest.fixture(scope="session")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """scenarios/sweeps/tiny.json (8 points of 4 GPUs), run on 2 cores and gathered."""
    out = tmp_path_factory.mktemp("sweep") / "tiny"
    _run([SWEEP, str(SCENARIOS / "sweeps" / "tiny.json"), "--engine", "local", "-j", "2",
          "--out", str(out)])
    _run([SWEEP, "gather", str(out)])
    return out
