# SPDX-License-Identifier: GPL-2.0-only
"""The one exception the package raises for results it cannot read."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Union


class ResultsError(ValueError):
    """A results file is missing, unreadable or not what ai-fabric writes.

    ``path`` is the file (or directory) at fault and ``field`` the key or column, when one is to
    blame; the message names both, on one line.
    """

    def __init__(self, path: Union[str, Path], message: str, field: Optional[str] = None) -> None:
        self.path = Path(path)
        self.field = field
        where = f"{self.path}" + (f": field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


class RunError(RuntimeError):
    """The runner failed (bad scenario, bad --set, simulation error); ``returncode`` is its
    exit status (2: bad input) and ``output`` what it printed."""

    def __init__(self, command: list, returncode: int, output: str) -> None:
        self.command = command
        self.returncode = returncode
        self.output = output
        last = output.strip().splitlines()[-1] if output.strip() else "(no output)"
        super().__init__(f"ai-fabric-runner exited with status {returncode}: {last}")
