# SPDX-License-Identifier: GPL-2.0-only
"""Units of ai-fabric's summary keys and CSV columns.

ai-fabric writes the unit into the name: ``step_ms.mean`` is in ms (the suffix of a parent key
holds for its children), ``busbw_gbytes_per_s`` in GB/s, ``max_port_queue_bytes`` in bytes. A
name with no unit suffix is a count, a ratio or a label. :func:`unit_of` reads the unit back.
"""

from __future__ import annotations

from typing import Dict, Iterable

# Suffix of a key (after the last '_'-joined words) -> unit; longest suffixes first.
_SUFFIXES = (
    ("_gbytes_per_s", "GB/s"),
    ("_usd_per_hr", "USD/h"),
    ("_per_s_per_host", "1/s per host"),
    ("_tflop_per_step", "TFLOP per step"),
    ("_gbps", "Gb/s"),
    ("_bytes", "bytes"),
    ("_kib", "KiB"),
    ("_mib", "MiB"),
    ("_ms", "ms"),
    ("_us", "us"),
    ("_ns", "ns"),
    ("_s", "s"),
    ("_b", "billions"),
)

# Keys whose parent's suffix does not apply to them (a count inside a breakdown in us).
_NOT_INHERITED = {"messages"}


def unit_of(name: str) -> str:
    """The unit of a summary key (dotted, as in ``counters.ib_credit_stall_us``) or a CSV
    column, or ``""`` for counts, ratios and labels."""
    parts = name.split(".")
    for i in range(len(parts) - 1, -1, -1):
        part = parts[i]
        if i < len(parts) - 1 and parts[-1] in _NOT_INHERITED:
            return ""
        for suffix, unit in _SUFFIXES:
            if part.endswith(suffix) and len(part) > len(suffix):
                return unit
    return ""


def units_of(columns: Iterable[str]) -> Dict[str, str]:
    """:func:`unit_of` of every column."""
    return {c: unit_of(c) for c in columns}
