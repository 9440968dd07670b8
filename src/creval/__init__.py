"""creval: evaluate creative generation systems (lyrics, poetry, symbolic music).

Front doors: :func:`evaluate` (tidy results table), :func:`evaluate_full`, :func:`run_evaluations`;
data: :func:`read_corpus`, :func:`read_generations`. Heavy modules are imported on first use.
"""

from __future__ import annotations

from typing import Any

from creval._version import __version__
from creval.metrics.base import TIDY_COLUMNS, Measure, MeasureResult, Score, Signature, register_measure

__all__ = [
    "TIDY_COLUMNS",
    "Measure",
    "MeasureResult",
    "Score",
    "Signature",
    "__version__",
    "evaluate",
    "evaluate_full",
    "read_corpus",
    "read_generations",
    "register_measure",
    "run_evaluations",
]

_LAZY = {
    "evaluate": ("creval.api", "evaluate"),
    "evaluate_full": ("creval.api", "evaluate_full"),
    "read_corpus": ("creval.corpus.io", "read_corpus"),
    "read_generations": ("creval.corpus.io", "read_generations"),
    "run_evaluations": ("creval.evaluations", "run_evaluations"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'creval' has no attribute {name!r}")
