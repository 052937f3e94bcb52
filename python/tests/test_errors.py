# SPDX-License-Identifier: GPL-2.0-only
"""A corrupt or incomplete results file gives one clear error naming the file (and the field)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import aifabric


@pytest.fixture()
def copy(default_run: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(default_run, dst)
    return dst


def one_line(e: BaseException) -> str:
    text = str(e)
    assert "\n" not in text
    return text


def test_truncated_summary(copy: Path) -> None:
    p = copy / "summary.json"
    p.write_text(p.read_text()[:200])
    with pytest.raises(aifabric.ResultsError) as e:
        aifabric.load(copy)
    msg = one_line(e.value)
    assert msg.startswith(f"{p}: not valid JSON")
    assert e.value.path == p


def test_summary_without_runs(copy: Path) -> None:
    (copy / "summary.json").write_text('{"scenario": "x"}\n')
    with pytest.raises(aifabric.ResultsError) as e:
        aifabric.load(copy)
    assert one_line(e.value) == f"{copy / 'summary.json'}: field 'runs': missing"
    assert e.value.field == "runs"


def test_text_in_a_numeric_column(copy: Path) -> None:
    p = copy / "RoCEv2_PFC_DCQCN" / "steps.csv"
    lines = p.read_text().splitlines()
    cells = lines[3].split(",")
    cells[4] = "garbage"  # collective_end_ms
    lines[3] = ",".join(cells)
    p.write_text("\n".join(lines) + "\n")
    res = aifabric.load(copy)  # traces are read when asked for
    with pytest.raises(aifabric.ResultsError) as e:
        res.run("RoCEv2 PFC+DCQCN").trace("steps")
    assert one_line(e.value) == (
        f"{p}: field 'collective_end_ms': line 4: 'garbage' is not a number"
    )


def test_missing_column(copy: Path) -> None:
    p = copy / "InfiniBand_NDR" / "queue.csv"
    p.write_text("time_us,total_queue_bytes\n0,0\n")
    with pytest.raises(aifabric.ResultsError) as e:
        aifabric.load(copy).trace("queue")
    assert one_line(e.value) == f"{p}: field 'max_port_queue_bytes': missing column"


def test_binary_garbage_csv(copy: Path) -> None:
    p = copy / "TCP_lossless" / "rate.csv"
    p.write_bytes(b"\xff\xfe\x00garbage\x00\n\x01\x02")
    with pytest.raises(aifabric.ResultsError) as e:
        aifabric.load(copy).run("TCP lossless").trace("rate")
    assert one_line(e.value).startswith(f"{p}: ")


def test_not_a_results_directory(tmp_path: Path) -> None:
    with pytest.raises(aifabric.ResultsError) as e:
        aifabric.load(tmp_path)
    assert "not an ai-fabric results directory" in one_line(e.value)
    with pytest.raises(aifabric.ResultsError):
        aifabric.load(tmp_path / "nope")


def test_unknown_run_and_trace(default_run: Path) -> None:
    res = aifabric.load(default_run)
    with pytest.raises(aifabric.ResultsError) as e:
        res.run("nope")
    assert "no run 'nope'" in one_line(e.value) and "InfiniBand NDR" in str(e.value)
    with pytest.raises(aifabric.ResultsError) as e:
        res.run().trace("flows")
    assert "flows.csv" in one_line(e.value)
