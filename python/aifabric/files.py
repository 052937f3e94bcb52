# SPDX-License-Identifier: GPL-2.0-only
"""Reading ai-fabric's files: JSON and CSV, each checked, errors naming the file and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pandas as pd

from .errors import ResultsError

# Every CSV trace a run writes: file stem -> (required columns, columns that are labels).
# Every other column must be numeric (an empty cell is NaN: e.g. an unfinished flow's FCT).
TRACES: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {
    "steps": (
        ("step", "rank", "start_ms", "compute_end_ms", "collective_end_ms", "barrier_ms", "last"),
        (),
    ),
    "steps_summary": (
        ("step", "start_ms", "step_ms", "collective_ms", "last_rank", "waited_on", "cause"),
        ("cause",),
    ),
    "latency_cdf": (("quantile", "latency_us"), ()),
    "queue": (("time_us", "max_port_queue_bytes", "total_queue_bytes"), ()),
    "rate": (("time_us", "qpn", "rate_gbps"), ()),
    "timeline": (("rank", "op", "kind", "phase", "start_us", "end_us"), ("op", "kind", "phase")),
    "jobs": (("job", "step", "step_ms", "last_rank", "waited_on", "cause"), ("job", "cause")),
    "flows": (
        ("flow", "src", "dst", "bytes", "start_us", "fct_us", "ideal_fct_us", "slowdown"),
        ("status",),
    ),
    "slowdown": (("max_bytes", "count", "p50", "p95", "p99"), ()),
    "nccl-tests": (
        ("size_bytes", "time_us", "algbw_gbytes_per_s", "busbw_gbytes_per_s"),
        ("type", "redop", "algorithm", "protocol"),
    ),
}


def read_json(path: Path, what: str) -> Any:
    """Parse a JSON file; a missing or broken file raises :class:`ResultsError` naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(path, f"missing ({what})") from None
    except OSError as e:
        raise ResultsError(path, f"cannot be read: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(
            path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); is it truncated?"
        ) from None


def require(obj: Any, key: str, kind: type, path: Path, field: Optional[str] = None) -> Any:
    """``obj[key]``, which must be a ``kind``; else :class:`ResultsError` naming ``field``."""
    name = field or key
    if not isinstance(obj, dict) or key not in obj:
        raise ResultsError(path, "missing", name)
    value = obj[key]
    if not isinstance(value, kind) or (kind in (int, float) and isinstance(value, bool)):
        raise ResultsError(path, f"expected {kind.__name__}, found {type(value).__name__}", name)
    return value


def read_csv(path: Path, stem: Optional[str] = None) -> pd.DataFrame:
    """Read one of the runner's CSV files and check its columns (:data:`TRACES`): a missing
    column, or text where a number belongs, raises :class:`ResultsError` naming the column."""
    stem = stem or path.stem
    try:
        df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    except FileNotFoundError:
        raise ResultsError(path, "missing") from None
    except pd.errors.EmptyDataError:
        raise ResultsError(path, "empty: no header line") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ResultsError(path, f"not a CSV file ai-fabric writes ({first})") from None
    required, labels = TRACES.get(stem, ((), ()))
    for c in required:
        if c not in df.columns:
            raise ResultsError(path, "missing column", c)
    for c in df.columns:
        if c in labels or c in ("run", "point_id", "fabric", "status"):
            continue
        if df[c].dtype == object:
            numeric = pd.to_numeric(df[c], errors="coerce")
            bad = df[c][numeric.isna() & df[c].notna()]
            if stem in TRACES and len(bad) > 0:
                row = int(bad.index[0]) + 2  # 1-based, after the header line
                raise ResultsError(
                    path, f"line {row}: '{bad.iloc[0]}' is not a number", str(c)
                ) from None
            if len(bad) == 0:
                df[c] = numeric
    return df


def flatten(obj: Dict[str, Any], prefix: str = "") -> Dict[str, Any]:
    """Nested summary keys joined with '.', as ``./ai-fabric gather`` names its columns (lists
    are left out: they are in the CSV traces)."""
    out: Dict[str, Any] = {}
    for k, v in obj.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out.update(flatten(v, key))
        elif not isinstance(v, list):
            out[key] = v
    return out


def order_columns(df: pd.DataFrame, first: Sequence[str]) -> pd.DataFrame:
    """``df`` with the columns of ``first`` (those present) leading, in that order."""
    lead: List[str] = []
    for c in first:
        if c in df.columns and c not in lead:
            lead.append(c)
    return df[lead + [c for c in df.columns if c not in lead]]
