# SPDX-License-Identifier: GPL-2.0-only
"""aifabric.run (the runner from Python) and the plotting helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import aifabric
from conftest import RUNNER


@pytest.fixture(autouse=True)
def runner_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIFABRIC_RUNNER", RUNNER)


def test_run_with_set(tmp_path: Path) -> None:
    out = tmp_path / "r"
    res = aifabric.run(
        "default",
        set={"topology.servers": 1, "workload.steps": 1, "workload.bytes": 65536,
             "compare": [{"name": "RoCE", "fabric": "rocev2"}]},
        out=out,
    )
    assert res.directory == out and list(res.runs) == ["RoCE"]
    assert res.summary.iloc[0]["gpus"] == 8 and res.summary.iloc[0]["steps"] == 1
    assert res.summary.iloc[0]["bytes"] == 65536


def test_run_a_dict_scenario(tmp_path: Path) -> None:
    scenario = {"name": "mine", "topology": {"servers": 2, "gpus_per_server": 2},
                "workload": {"steps": 1, "compute_ms": 1, "bytes": 65536}}
    res = aifabric.run(scenario, out=tmp_path / "r")
    assert res.scenario == "mine" and res.summary.iloc[0]["gpus"] == 4


def test_run_bad_key_names_it(tmp_path: Path) -> None:
    with pytest.raises(aifabric.RunError) as e:
        aifabric.run("default", set={"topology.servers": "x"}, out=tmp_path / "r")
    assert e.value.returncode == 2
    assert "topology.servers" in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "r").exists()


def test_plots(default_run: Path, flow_run: Path, sweep_dir: Path, tmp_path: Path) -> None:
    res = aifabric.load(default_run)
    figures = {
        "timeline": aifabric.plot_step_timeline(res, run="InfiniBand NDR", step=1),
        "queue": aifabric.plot_queue(res),
        "busbw": aifabric.plot_busbw(res),
        "slowdown": aifabric.plot_slowdown(aifabric.load(flow_run), quantile="p95"),
        "sweep-busbw": aifabric.plot_busbw(aifabric.load(sweep_dir), x="faults.drop_rate"),
    }
    ax = figures["timeline"].axes[0]
    assert len(ax.patches) == 3 * 16  # compute, collective and wait bars of 16 ranks
    assert len(figures["slowdown"].axes[0].lines) == 6  # one per congestion control
    for name, fig in figures.items():
        path = tmp_path / f"{name}.png"
        fig.savefig(path)
        assert path.stat().st_size > 5000, name
    with pytest.raises(aifabric.ResultsError):
        aifabric.plot_step_timeline(aifabric.load(sweep_dir))


def test_python_command_needs_nothing_installed() -> None:
    # The package is importable from the repository alone (PYTHONPATH=python).
    assert Path(aifabric.__file__).parent.parent.name == "python"
    assert os.path.isfile(Path(aifabric.__file__).parent / "py.typed")
