"""Errors that describe a user's mistake (bad input), as opposed to a bug.

The CLI prints a :class:`InputError` as one line and exits with status 2; it never shows a traceback for one.
"""

from __future__ import annotations

from pathlib import Path


class CrevalError(Exception):
    """Base class for every error creval raises on purpose."""


class InputError(CrevalError, ValueError):
    """Bad input: names the file, the line (1-based, when known) and the problem."""

    def __init__(self, problem: str, file: str | Path | None = None, line: int | None = None) -> None:
        self.problem = problem
        self.file = str(file) if file is not None else None
        self.line = line
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        return f"{where}{self.problem}"


class UndefinedValue(CrevalError):
    """A statistic is undefined for this input (the reason is the message)."""
