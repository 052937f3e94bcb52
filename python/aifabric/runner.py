# SPDX-License-Identifier: GPL-2.0-only
"""Running a scenario from Python: the unchanged ai-fabric-runner, then :func:`load`."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, List, Mapping, Optional, Union

from .errors import RunError
from .results import RunResults, load

PathLike = Union[str, Path]

#: The repository this package lives in (python/aifabric/ -> the repository).
ROOT = Path(__file__).resolve().parents[2]


def runner_command() -> List[str]:
    """How to start the runner: ``$AIFABRIC_RUNNER``, else the built
    ``$AIFABRIC_BUILD_DIR/ai-fabric-runner`` (default ``build/``), else ``./ai-fabric run``,
    which installs what is missing and builds the runner first."""
    env = os.environ.get("AIFABRIC_RUNNER")
    if env:
        return [env]
    build = Path(os.environ.get("AIFABRIC_BUILD_DIR", ROOT / "build"))
    built = build / "ai-fabric-runner"
    if built.is_file() and os.access(built, os.X_OK):
        return [str(built)]
    return [str(ROOT / "ai-fabric"), "run"]


def set_value(value: Any) -> str:
    """A Python value as ``--set key=value`` takes it: JSON for booleans, None, lists and
    objects (``true``, ``[1, 2]``), plain text for numbers and strings."""
    if isinstance(value, (bool, list, tuple, dict)) or value is None:
        return json.dumps(value)
    return str(value)


def scenario_path(scenario: Union[PathLike, Mapping[str, Any], None], tmp: Path) -> str:
    """A scenario file for the runner: a path, a name of ``scenarios/`` (``"default"``), or a
    dict (written to ``tmp``)."""
    if scenario is None:
        return str(ROOT / "scenarios" / "default.json")
    if isinstance(scenario, Mapping):
        path = tmp / "scenario.json"
        path.write_text(json.dumps(scenario, indent=2) + "\n", encoding="utf-8")
        return str(path)
    p = Path(scenario)
    if not p.exists() and p.suffix == "" and (ROOT / "scenarios" / f"{p}.json").exists():
        return str(ROOT / "scenarios" / f"{p}.json")
    return str(p)


def run(
    scenario: Union[PathLike, Mapping[str, Any], None] = None,
    set: Optional[Mapping[str, Any]] = None,  # noqa: A002 -- the runner's own option name
    out: Optional[PathLike] = None,
    timeout: Optional[float] = None,
) -> RunResults:
    """Run a scenario with ai-fabric-runner and load its results.

    ``scenario`` is a scenario file, the name of one in ``scenarios/`` (``"default"``,
    ``"training-llama3-8b"``) or a dict in the scenario format (None: the default scenario).
    ``set`` overrides keys as ``--set`` does: ``{"topology.servers": 2, "workload.steps": 1}``.
    ``out`` is the results directory (it must not exist; default: the runner's
    ``results/<name>-<time>/`` under the current directory).

    Raises :class:`RunError` (with the runner's exit status and output) when the runner fails;
    status 2 is bad input, and the message's last line names the key.
    """
    with tempfile.TemporaryDirectory(prefix="aifabric-") as tmp:
        cmd = runner_command() + [scenario_path(scenario, Path(tmp))]
        for key, value in (set or {}).items():
            cmd += ["--set", f"{key}={set_value(value)}"]
        if out is not None:
            cmd += ["--out", str(out)]
        proc = subprocess.run(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            check=False,
        )
    if proc.returncode != 0:
        raise RunError(cmd, proc.returncode, proc.stdout)
    directory = Path(out) if out is not None else None
    for line in reversed(proc.stdout.splitlines()):
        if directory is None and line.startswith("results in "):
            directory = Path(line[len("results in ") :].strip())
    if directory is None:
        raise RunError(cmd, proc.returncode, proc.stdout + "\n(no 'results in' line)")
    res = load(directory)
    assert isinstance(res, RunResults)
    return res
