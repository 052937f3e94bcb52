# SPDX-License-Identifier: GPL-2.0-only
"""The figures researchers ask for, drawn with matplotlib from loaded results.

Each helper takes what :func:`aifabric.load` returns and either an ``ax`` to draw into or none
(a new :class:`matplotlib.figure.Figure` is made, with no pyplot and no display: it works on a
headless machine, and ``fig.savefig("x.png")`` writes it). Each returns the Figure.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .errors import ResultsError
from .results import NcclTestsResults, Results, RunResults, SweepResults

COMPUTE, COLLECTIVE, WAIT = "#4caf50", "#e53935", "#9e9e9e"


def _axes(ax: Optional[Axes], size: Tuple[float, float] = (8.0, 4.5)) -> Tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()


def _run_of(res: Results, run: Optional[str]) -> RunResults:
    if not isinstance(res, RunResults):
        raise ResultsError(res.directory, "this figure is drawn from one run directory, not a sweep")
    res.run(run)  # a wrong name raises, naming the runs there are
    return res


def plot_step_timeline(
    res: Results, run: Optional[str] = None, step: Optional[int] = None, ax: Optional[Axes] = None
) -> Figure:
    """Per-rank step timeline of one run (``steps.csv``): each rank's compute (green), its time
    in the collective (red) and its wait at the barrier for the last rank (grey), in ms;
    ``step`` picks one step (all when None)."""
    r = _run_of(res, run).run(run)
    df = r.trace("steps")
    if step is not None:
        df = df[df["step"] == step]
    if df.empty:
        raise ResultsError(r.directory / "steps.csv", "no steps to draw (a flow workload?)", "step")
    fig, ax = _axes(ax)
    for colour, a, b, label in (
        (COMPUTE, "start_ms", "compute_end_ms", "compute"),
        (COLLECTIVE, "compute_end_ms", "collective_end_ms", "collective"),
        (WAIT, "collective_end_ms", "barrier_ms", "waiting at the barrier"),
    ):
        ax.barh(df["rank"], df[b] - df[a], left=df[a], height=0.8, color=colour, label=label)
    last = df[df["last"] == 1]
    ax.plot(last["collective_end_ms"], last["rank"], "k|", markersize=8, label="last rank")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("rank")
    ax.set_title(f"{r.name}: per-rank steps")
    ax.legend(loc="upper left", fontsize="small")
    return fig


def plot_busbw(
    res: Results, x: str = "workload.bytes", by: str = "fabric", ax: Optional[Axes] = None
) -> Figure:
    """Bus bandwidth (GB/s) against the message size: from ``nccl-tests.csv``
    (``./ai-fabric nccl-tests``), or from a sweep over ``x`` (one line per value of ``by``, the
    mean over seeds), or each run of one run directory as a point."""
    fig, ax = _axes(ax)
    if isinstance(res, NcclTestsResults):
        df = res.summary
        ax.plot(df["size_bytes"], df["busbw_gbytes_per_s"], "o-", label="busbw")
    elif isinstance(res, SweepResults):
        df = res.summary
        for col in (x, "busbw_gbytes_per_s"):
            if col not in df.columns:
                raise ResultsError(res.directory / "sweep.json", "not a column of the sweep", col)
        groups: Any = df.groupby(by) if by in df.columns else [("", df)]
        for name, g in groups:
            m = g.groupby(x)["busbw_gbytes_per_s"].mean().sort_index()
            ax.plot(m.index, m.values, "o-", label=str(name))
    else:
        df = res.summary
        ax.plot(df["bytes"], df["busbw_gbytes_per_s"], "o", label="runs")
        for _, r in df.iterrows():
            ax.annotate(str(r["run"]), (r["bytes"], r["busbw_gbytes_per_s"]), fontsize="small")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("size per GPU (bytes)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def plot_slowdown(
    res: Results, quantile: str = "p99", ax: Optional[Axes] = None
) -> Figure:
    """FCT slowdown (FCT / ideal FCT) against the flow size, one line per run of a flow
    workload (``slowdown.csv``): the ``quantile`` (``"p50"``, ``"p95"`` or ``"p99"``) of each
    size bucket, at the bucket's largest size."""
    if quantile not in ("p50", "p95", "p99"):
        raise ValueError(f"quantile: one of p50, p95, p99 (got {quantile!r})")
    df = res.trace("slowdown")
    fig, ax = _axes(ax)
    # One line per run (of each point of a sweep): its label joins what tells the runs apart.
    keys = [c for c in df.columns if c not in ("max_bytes", "count", "p50", "p95", "p99")]
    if isinstance(res, SweepResults):
        keys = [k for k in keys if k not in ("point_id",)]
    for label, g in _groups(df, keys):
        g = g.sort_values("max_bytes")
        ax.plot(g["max_bytes"], g[quantile], "o-", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flow size (bytes, upper edge of the bucket)")
    ax.set_ylabel(f"FCT slowdown, {quantile}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def _groups(df: pd.DataFrame, keys: list) -> list:
    """(label, rows) per distinct combination of ``keys``, in order of appearance."""
    if not keys:
        return [("", df)]
    out = []
    for name, g in df.groupby(keys[0] if len(keys) == 1 else keys, sort=False):
        label = " / ".join(str(v) for v in name) if isinstance(name, tuple) else str(name)
        out.append((label, g))
    return out


def plot_queue(res: Results, run: Optional[str] = None, ax: Optional[Axes] = None) -> Figure:
    """The largest switch egress queue (KiB) over time (ms) of one run (``queue.csv``, each
    sampling interval's peak), with PFC pause frames sent per interval on a second axis."""
    r = _run_of(res, run).run(run)
    df: pd.DataFrame = r.trace("queue")
    fig, ax = _axes(ax)
    ax.step(df["time_us"] / 1000, df["max_port_queue_bytes"] / 1024, where="post",
            label="largest egress queue")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue (KiB)")
    ax.set_title(f"{r.name}: switch queues")
    if "pfc_frames_in_interval" in df.columns and df["pfc_frames_in_interval"].any():
        ax2 = ax.twinx()
        ax2.plot(df["time_us"] / 1000, df["pfc_frames_in_interval"], ".", color=COLLECTIVE,
                 markersize=3, label="PFC pause frames")
        ax2.set_ylabel("PFC pause frames per interval")
    ax.legend(loc="upper left", fontsize="small")
    return fig
