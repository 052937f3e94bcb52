# SPDX-License-Identifier: GPL-2.0-only
"""Results of ``./ai-fabric run`` and of a sweep, as pandas DataFrames.

A run directory (``./ai-fabric run --out DIR``) holds ``summary.json`` (one entry per run of
the scenario, e.g. one per fabric of a comparison), ``config.json`` and, per run, a
subdirectory of CSV traces (``steps.csv``, ``queue.csv``, ...). A sweep directory holds
``sweep.json`` (the swept keys and every point), one run directory per finished point and,
after ``./ai-fabric gather``, ``gathered/results.csv``. :func:`load` reads either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import pandas as pd

from .errors import ResultsError
from .files import TRACES, flatten, order_columns, read_csv, read_json, require
from .units import units_of

PathLike = Union[str, Path]


class Run:
    """One run of a scenario: its entry of ``summary.json`` and its CSV traces.

    ``summary`` is the run's summary as ai-fabric wrote it (nested dicts); :meth:`trace` reads
    one CSV of the run's subdirectory (``"steps"``, ``"steps_summary"``, ``"timeline"``,
    ``"queue"``, ``"rate"``, ``"latency_cdf"``, ``"flows"``, ``"slowdown"``, ``"jobs"``).
    """

    def __init__(self, name: str, directory: Path, summary: Dict[str, Any]) -> None:
        self.name = name
        self.directory = directory
        self.summary = summary
        self._traces: Dict[str, pd.DataFrame] = {}

    def __repr__(self) -> str:
        return f"Run({self.name!r}, {str(self.directory)!r})"

    @property
    def trace_names(self) -> List[str]:
        """The CSV traces this run has (file stems), sorted."""
        return sorted(p.stem for p in self.directory.glob("*.csv"))

    def trace(self, name: str) -> pd.DataFrame:
        """The CSV trace ``name`` (a stem: ``"steps"`` is ``steps.csv``) as a DataFrame; units
        are in the column names (``start_ms``, ``time_us``, ``max_port_queue_bytes``)."""
        if name not in self._traces:
            path = self.directory / f"{name}.csv"
            if not path.exists():
                have = ", ".join(self.trace_names) or "none"
                raise ResultsError(path, f"no such trace in run '{self.name}' (it has: {have})")
            self._traces[name] = read_csv(path, name)
        return self._traces[name]

    @property
    def traces(self) -> Dict[str, pd.DataFrame]:
        """Every CSV trace of the run, by stem."""
        return {n: self.trace(n) for n in self.trace_names}


class RunResults:
    """A results directory of ``./ai-fabric run``.

    ``summary`` has one row per run, the nested keys of ``summary.json`` joined with '.' as
    ``./ai-fabric gather`` names them (``step_ms.mean``, ``collective.busbw_gbytes_per_s``,
    ``counters.drops_buffer``); ``units`` maps each column to its unit (``""``: a count, a ratio
    or a label). ``runs`` maps each run's name to its :class:`Run`.
    """

    kind = "run"

    def __init__(self, directory: PathLike) -> None:
        self.directory = Path(directory)
        path = self.directory / "summary.json"
        self.raw: Dict[str, Any] = read_json(path, "a run directory's summary")
        if not isinstance(self.raw, dict):
            raise ResultsError(path, "expected a JSON object")
        self.scenario: str = str(self.raw.get("scenario", ""))
        entries = require(self.raw, "runs", list, path)
        names = _run_directories(self.directory, entries, path)
        self.runs: Dict[str, Run] = {}
        rows: List[Dict[str, Any]] = []
        for i, (entry, sub) in enumerate(zip(entries, names)):
            if not isinstance(entry, dict):
                raise ResultsError(path, "expected an object", f"runs[{i}]")
            name = str(require(entry, "name", str, path, f"runs[{i}].name"))
            self.runs[name] = Run(name, self.directory / sub, entry)
            row = flatten(entry)
            row["run"] = row.pop("name")
            rows.append(row)
        self.summary: pd.DataFrame = order_columns(pd.DataFrame(rows), ["run", "fabric"])
        self.units: Dict[str, str] = units_of(self.summary.columns)

    def __repr__(self) -> str:
        return f"RunResults({str(self.directory)!r}, runs={list(self.runs)})"

    @property
    def config(self) -> Dict[str, Any]:
        """``config.json``: every run's resolved scenario and its ns-3 attribute values."""
        return read_json(self.directory / "config.json", "the resolved scenario")

    def run(self, name: Optional[str] = None) -> Run:
        """The run called ``name`` (the first when None)."""
        if name is None:
            return next(iter(self.runs.values()))
        if name not in self.runs:
            raise ResultsError(
                self.directory / "summary.json",
                f"no run '{name}' (runs: {', '.join(self.runs)})",
                "runs[].name",
            )
        return self.runs[name]

    def trace(self, name: str) -> pd.DataFrame:
        """Trace ``name`` of every run that has it, stacked, with a leading ``run`` column."""
        frames = []
        for run in self.runs.values():
            if (run.directory / f"{name}.csv").exists():
                frames.append(run.trace(name).assign(run=run.name))
        if not frames:
            known = ", ".join(TRACES)
            raise ResultsError(self.directory, f"no run has {name}.csv (traces: {known})")
        return order_columns(pd.concat(frames, ignore_index=True), ["run"])

    @property
    def nccl_tests(self) -> pd.DataFrame:
        """``nccl-tests.csv`` of ``./ai-fabric nccl-tests --out DIR``."""
        return read_csv(self.directory / "nccl-tests.csv", "nccl-tests")


def _run_directories(directory: Path, entries: List[Any], path: Path) -> List[str]:
    """The subdirectory of each run, in order: compare.csv's ``run`` column names them (the
    runner makes run names safe and distinct as file names)."""
    compare = directory / "compare.csv"
    if compare.exists():
        dirs = [str(d) for d in read_csv(compare, "compare")["run"].tolist()]
        if len(dirs) != len(entries):
            raise ResultsError(
                compare, f"{len(dirs)} runs, but summary.json has {len(entries)}", "run"
            )
        return dirs
    return [str(e.get("name", "")) if isinstance(e, dict) else "" for e in entries]


class SweepResults:
    """A sweep directory (``./ai-fabric sweep``), gathered or not.

    ``summary`` has one row per run of every finished point: ``point_id``, ``seed``, the swept
    keys (as ``sweep.json`` lists them, e.g. ``fabric``, ``faults.drop_rate``), ``run`` and every
    summary key, the same columns as ``gathered/results.csv``. ``points`` maps each finished
    point's id to its :class:`RunResults`; ``keys`` are the swept keys.
    """

    kind = "sweep"

    def __init__(self, directory: PathLike) -> None:
        self.directory = Path(directory)
        path = self.directory / "sweep.json"
        self.manifest: Dict[str, Any] = read_json(path, "a sweep's manifest")
        self.name = str(self.manifest.get("sweep", ""))
        self.keys: List[str] = [str(k) for k in require(self.manifest, "keys", list, path)]
        points = require(self.manifest, "points", list, path)
        self.points: Dict[str, RunResults] = {}
        self.missing: List[str] = []
        self._values: Dict[str, Dict[str, Any]] = {}
        rows: List[Dict[str, Any]] = []
        for i, p in enumerate(points):
            pid = str(require(p, "id", str, path, f"points[{i}].id"))
            values = require(p, "values", dict, path, f"points[{i}].values")
            seed = require(p, "seed", int, path, f"points[{i}].seed")
            self._values[pid] = dict(values, seed=seed)
            if not (self.directory / pid / "summary.json").exists():
                self.missing.append(pid)
                continue
            res = RunResults(self.directory / pid)
            self.points[pid] = res
            for _, r in res.summary.iterrows():
                row: Dict[str, Any] = {"point_id": pid, "seed": seed}
                row.update({k: values.get(k) for k in self.keys})
                for c, v in r.items():
                    # A swept key the run reports itself (pfc, loss_recovery, ...): the run's
                    # value is the one it used, as gather keeps it.
                    if c not in row or c in self.keys and c != "fabric":
                        row[c] = v
                rows.append(row)
        lead = ["point_id", "seed"] + self.keys + ["run", "fabric"]
        self.summary: pd.DataFrame = order_columns(pd.DataFrame(rows), lead)
        self.units: Dict[str, str] = units_of(self.summary.columns)

    def __repr__(self) -> str:
        return (
            f"SweepResults({str(self.directory)!r}, keys={self.keys}, "
            f"points={len(self.points)}, missing={len(self.missing)})"
        )

    @property
    def gathered(self) -> pd.DataFrame:
        """``gathered/results.csv`` as ``./ai-fabric gather`` wrote it."""
        path = self.directory / "gathered" / "results.csv"
        if not path.exists():
            raise ResultsError(path, f"missing: run ./ai-fabric gather {self.directory}")
        return read_csv(path, "results")

    def values(self, point_id: str) -> Dict[str, Any]:
        """The swept keys' values (and ``seed``) of point ``point_id``."""
        if point_id not in self._values:
            raise ResultsError(self.directory / "sweep.json", f"no point '{point_id}'", "points")
        return self._values[point_id]

    def trace(self, name: str) -> pd.DataFrame:
        """Trace ``name`` of every run of every finished point, stacked, each row with its
        ``point_id``, ``seed``, swept keys and ``run``."""
        frames = []
        for pid, res in self.points.items():
            if not any((r.directory / f"{name}.csv").exists() for r in res.runs.values()):
                continue
            df = res.trace(name)
            for k, v in reversed(list(self.values(pid).items())):
                df.insert(0, k, [v] * len(df))
            df.insert(0, "point_id", pid)
            frames.append(df)
        if not frames:
            raise ResultsError(self.directory, f"no finished point has {name}.csv")
        lead = ["point_id", "seed"] + self.keys + ["run"]
        return order_columns(pd.concat(frames, ignore_index=True), lead)


Results = Union[RunResults, SweepResults]


def load(directory: PathLike) -> Results:
    """Load a results directory: a run's (``summary.json``), a sweep's (``sweep.json``) or a
    sweep's ``gathered/`` directory (its sweep is loaded).

    >>> res = aifabric.load("results/default-20260101-120000")
    >>> res.summary[["run", "step_ms.mean", "collective.busbw_gbytes_per_s"]]
    >>> res.trace("steps")          # every run's steps.csv, with a 'run' column
    """
    d = Path(directory)
    if not d.is_dir():
        raise ResultsError(d, "not a directory")
    if d.name == "gathered" and (d.parent / "sweep.json").exists():
        d = d.parent
    if (d / "sweep.json").exists():
        return SweepResults(d)
    if (d / "summary.json").exists():
        return RunResults(d)
    if (d / "nccl-tests.csv").exists():
        return NcclTestsResults(d)
    raise ResultsError(
        d, "not an ai-fabric results directory (no summary.json, sweep.json or nccl-tests.csv)"
    )


class NcclTestsResults:
    """The directory of ``./ai-fabric nccl-tests --out DIR``: ``summary`` is ``nccl-tests.csv``
    (one row per size: ``size_bytes``, ``time_us``, ``algbw_gbytes_per_s``,
    ``busbw_gbytes_per_s``, the algorithm, protocol and channels used)."""

    kind = "nccl-tests"

    def __init__(self, directory: PathLike) -> None:
        self.directory = Path(directory)
        self.summary: pd.DataFrame = read_csv(self.directory / "nccl-tests.csv", "nccl-tests")
        self.units: Dict[str, str] = units_of(self.summary.columns)

    def __repr__(self) -> str:
        return f"NcclTestsResults({str(self.directory)!r}, sizes={len(self.summary)})"
