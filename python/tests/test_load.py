# SPDX-License-Identifier: GPL-2.0-only
"""aifabric.load gives the numbers of summary.json and of the CSVs, read here independently
with the json and csv modules, for a default run, a sweep, a flow run and a training run."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pandas as pd
import pytest

import aifabric


def leaves(obj: Dict[str, Any], prefix: str = "") -> Iterator[Tuple[str, Any]]:
    """Every scalar of a summary, with its dotted key."""
    for k, v in obj.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            yield from leaves(v, key)
        elif not isinstance(v, list):
            yield key, v


def same(a: Any, b: Any) -> bool:
    """Equal values, numbers exactly as parsed (a JSON double read twice is the same double)."""
    if isinstance(b, bool) or isinstance(a, bool):
        return bool(a) == bool(b)
    if isinstance(b, (int, float)):
        return float(a) == float(b) or (math.isnan(float(a)) and math.isnan(float(b)))
    return str(a) == str(b)


def csv_rows(path: Path) -> List[Dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_summary(res: aifabric.RunResults, directory: Path) -> None:
    """Every scalar of every run of summary.json is in res.summary, in its run's row."""
    raw = json.loads((directory / "summary.json").read_text())
    assert list(res.summary["run"]) == [r["name"] for r in raw["runs"]]
    checked = 0
    for i, run in enumerate(raw["runs"]):
        for key, value in leaves(run):
            col = "run" if key == "name" else key
            assert same(res.summary.iloc[i][col], value), f"run {i}: {col}"
            checked += 1
    assert checked >= 50 * len(raw["runs"])


def check_traces(res: aifabric.RunResults) -> None:
    """Each run's CSVs: the same header, rows and numbers as the csv module reads."""
    for run in res.runs.values():
        names = run.trace_names
        assert "steps" in names and "queue" in names
        for name in names:
            rows = csv_rows(run.directory / f"{name}.csv")
            df = run.trace(name)
            assert len(df) == len(rows), f"{run.name}/{name}.csv"
            for j, row in enumerate(rows[:50]):
                for col, text in row.items():
                    got = df.iloc[j][col]
                    if text == "":
                        assert pd.isna(got), f"{name}.csv line {j + 2} {col}"
                    else:
                        try:
                            want: Any = float(text)
                        except ValueError:
                            want = text
                        assert same(got, want), f"{run.name}/{name}.csv line {j + 2} {col}"


def test_default_run(default_run: Path) -> None:
    res = aifabric.load(default_run)
    assert isinstance(res, aifabric.RunResults)
    assert list(res.runs) == [
        "TCP 0.01% loss", "TCP lossless", "RoCEv2 PFC+DCQCN", "RoCEv2 0.01% loss GBN",
        "InfiniBand NDR",
    ]
    check_summary(res, default_run)
    check_traces(res)
    # steps.csv: one row per rank per step (16 GPUs, 2 steps); the stacked trace has them all.
    for run in res.runs.values():
        steps = run.trace("steps")
        assert len(steps) == 16 * 2
        assert sorted(steps["rank"].unique()) == list(range(16))
        # The step's mean, recomputed from steps_summary.csv (barrier - start of each step).
        mean = run.trace("steps_summary")["step_ms"].mean()
        assert mean == pytest.approx(run.summary["step_ms"]["mean"], rel=1e-9)
    stacked = res.trace("steps")
    assert len(stacked) == 5 * 32 and list(stacked.columns[:2]) == ["run", "step"]


def test_default_run_units(default_run: Path) -> None:
    res = aifabric.load(default_run)
    u = res.units
    assert u["step_ms.mean"] == "ms"
    assert u["busbw_gbytes_per_s"] == "GB/s"
    assert u["network_latency_us.p99"] == "us"
    assert u["idle_cost_usd_per_hr"] == "USD/h"
    assert u["counters.ib_credit_stall_us"] == "us"
    assert u["tcp_message_breakdown_us.messages"] == ""  # a count inside a breakdown in us
    assert u["counters.data_packets"] == "" and u["mfu_effective"] == ""
    assert aifabric.unit_of("max_port_queue_bytes") == "bytes"
    assert aifabric.unit_of("rate_gbps") == "Gb/s"


def test_sweep(sweep_dir: Path) -> None:
    res = aifabric.load(sweep_dir)
    assert isinstance(res, aifabric.SweepResults)
    assert res.keys == ["fabric", "faults.drop_rate"] and not res.missing
    manifest = json.loads((sweep_dir / "sweep.json").read_text())
    assert len(res.points) == len(manifest["points"]) == 8
    # Every point's row carries its swept values and seed, as the manifest lists them.
    for p in manifest["points"]:
        rows = res.summary[res.summary["point_id"] == p["id"]]
        assert len(rows) == 1
        assert rows.iloc[0]["seed"] == p["seed"]
        assert rows.iloc[0]["faults.drop_rate"] == p["values"]["faults.drop_rate"]
        assert rows.iloc[0]["fabric"] == p["values"]["fabric"]
        raw = json.loads((sweep_dir / p["id"] / "summary.json").read_text())
        for key, value in leaves(raw["runs"][0]):
            if key not in ("name", "fabric"):
                assert same(rows.iloc[0][key], value), f"{p['id']}: {key}"
    # The same table as ./ai-fabric gather's results.csv, cell for cell.
    rows = csv_rows(sweep_dir / "gathered" / "results.csv")
    assert len(rows) == len(res.summary)
    by_id = res.summary.set_index("point_id")
    for row in rows:
        mine = by_id.loc[row["point_id"]]
        for col, text in row.items():
            if col == "point_id":
                continue
            if text in ("true", "false"):
                assert bool(mine[col]) == (text == "true"), col
            elif text == "":
                assert pd.isna(mine[col]) or mine[col] == "", col
            else:
                try:
                    assert float(mine[col]) == float(text), col
                except ValueError:
                    assert str(mine[col]) == text, col
    # Traces of the points, each row with its point's keys.
    steps = res.trace("steps")
    assert len(steps) == 8 * 4  # 8 points x 4 GPUs x 1 step
    assert list(steps.columns[:5]) == ["point_id", "seed", "fabric", "faults.drop_rate", "run"]
    # gathered/ loads as its sweep.
    assert isinstance(aifabric.load(sweep_dir / "gathered"), aifabric.SweepResults)


def test_flow_run(flow_run: Path) -> None:
    res = aifabric.load(flow_run)
    assert isinstance(res, aifabric.RunResults)
    check_summary(res, flow_run)
    check_traces(res)
    for run in res.runs.values():
        flows = run.trace("flows")
        assert len(flows) == run.summary["flows"]["total"] > 0
        done = flows[flows["status"] == "completed"]
        assert len(done) == run.summary["flows"]["completed"]
        # slowdown = FCT / ideal FCT, as the CSV's own columns say.
        assert (done["slowdown"] - done["fct_us"] / done["ideal_fct_us"]).abs().max() < 1e-5
        slow = run.trace("slowdown")
        assert slow["count"].sum() == len(done)
    assert res.summary.loc[res.summary["run"] == "HPCC", "congestion_control"].item() == "hpcc"


def test_training_run(training_run: Path) -> None:
    res = aifabric.load(training_run)
    check_summary(res, training_run)
    check_traces(res)
    run = res.run()
    assert res.summary.iloc[0]["training.parallelism.tp"] == 2
    assert res.summary.iloc[0]["training.parallelism.dp"] == 2
    timeline = run.trace("timeline")
    assert set(timeline["rank"]) == {0, 1, 2, 3}
    assert (timeline["end_us"] >= timeline["start_us"]).all()
    assert {"compute"} <= set(timeline["kind"])
    # The step is the phases' sum (each rank's phases add up to its step).
    phases = sum(v for k, v in res.summary.iloc[0].items() if k.startswith("training.phases_ms."))
    assert phases == pytest.approx(res.summary.iloc[0]["step_ms.mean"], rel=1e-6)
