# SPDX-License-Identifier: GPL-2.0-only
"""ai-fabric's results in pandas, and its runner from Python.

>>> import aifabric
>>> res = aifabric.load("results/default-20260101-120000")   # a run, a sweep or gathered/
>>> res.summary                       # one row per run, units in the column names
>>> res.trace("steps")                # every run's steps.csv, with a 'run' column
>>> res = aifabric.run("default", set={"topology.servers": 2, "workload.steps": 1})
>>> aifabric.plot_step_timeline(res).savefig("timeline.png")

Needs Debian's python3-pandas and python3-matplotlib (``scripts/install-deps.sh --python``);
without installing the package: ``PYTHONPATH=python /usr/bin/python3`` or ``./ai-fabric python``.
"""

from .errors import ResultsError, RunError
from .plots import plot_busbw, plot_queue, plot_slowdown, plot_step_timeline
from .results import NcclTestsResults, Results, Run, RunResults, SweepResults, load
from .runner import run
from .units import unit_of

__all__ = [
    "NcclTestsResults",
    "Results",
    "ResultsError",
    "Run",
    "RunError",
    "RunResults",
    "SweepResults",
    "load",
    "plot_busbw",
    "plot_queue",
    "plot_slowdown",
    "plot_step_timeline",
    "run",
    "unit_of",
]
