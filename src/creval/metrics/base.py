"""Scores, signatures and the measure registry.

Every number creval reports carries a :class:`Signature` (name, version, parameters, model, tokenizer), in the
spirit of sacrebleu: two numbers are comparable only when their signatures are equal.

A *measure* is a class registered with :func:`register_measure`. The evaluation pipeline

1. builds it with keyword parameters (``Measure(**params)``),
2. calls :meth:`Measure.fit` once with the training/reference corpus (build indexes here, never per output),
3. calls :meth:`Measure.score` with all outputs, which returns a :class:`MeasureResult`: one array per
   reported measure name, aligned with the outputs (NaN where undefined), plus optional extra tidy rows
   (for set-level values such as diversity across samples) and artifacts for the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from creval._version import __version__

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from creval.corpus.model import Corpus, Output

TIDY_COLUMNS: tuple[str, ...] = (
    "system",
    "output_id",
    "input_id",
    "sample",
    "checkpoint",
    "artist",
    "measure",
    "value",
)


@dataclass(frozen=True)
class Signature:
    """What produced a number: measure name, implementation version, parameters, model and tokenizer.

    ``str(signature)`` gives a compact, stable, sacrebleu-like string, e.g.
    ``ttr|tok:word|lower:yes|version:creval-0.1.0``.
    """

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    tokenizer: str | None = None
    model: str | None = None
    version: str = f"creval-{__version__}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "params": {k: _plain(v) for k, v in sorted(self.params.items())},
            "tokenizer": self.tokenizer,
            "model": self.model,
            "version": self.version,
            "string": str(self),
        }

    def __str__(self) -> str:
        parts = [self.name]
        if self.tokenizer is not None:
            parts.append(f"tok:{self.tokenizer}")
        for key, value in sorted(self.params.items()):
            parts.append(f"{key}:{_fmt(value)}")
        if self.model is not None:
            parts.append(f"model:{self.model}")
        parts.append(f"version:{self.version}")
        return "|".join(parts)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ",".join(_fmt(v) for v in value)
    return str(value)


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


@dataclass(frozen=True)
class Score:
    """A number with its signature; formats itself like ``TTR = 0.5123 (ttr|tok:word|…)``.

    ``ci`` is an optional (low, high) confidence interval and ``detail`` free-form extra values
    (e.g. BLEU's n-gram precisions).
    """

    name: str
    value: float
    signature: Signature
    ci: tuple[float, float] | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    def format(self, digits: int = 4) -> str:
        if self.value is None or (isinstance(self.value, float) and math.isnan(self.value)):
            text = f"{self.name} = undefined"
        else:
            text = f"{self.name} = {self.value:.{digits}f}"
        if self.ci is not None:
            text += f" [{self.ci[0]:.{digits}f}, {self.ci[1]:.{digits}f}]"
        return text

    def __str__(self) -> str:
        return f"{self.format()} ({self.signature})"

    def __float__(self) -> float:
        return float(self.value)


@dataclass
class MeasureResult:
    """What :meth:`Measure.score` returns.

    ``values``: reported measure name → float array aligned with the outputs passed to ``score`` (NaN where
    undefined; put the reason in ``notes``). ``rows``: extra tidy rows (dicts with :data:`TIDY_COLUMNS`) for
    values that belong to a set of outputs rather than one. ``signatures``: reported name → Signature (every
    name in ``values`` and in ``rows`` needs one). ``artifacts``: anything a report section wants (plots' data).
    ``notes``: human-readable remarks (why a value is NaN, what was skipped).
    """

    values: dict[str, np.ndarray] = field(default_factory=dict)
    signatures: dict[str, Signature] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    artifacts: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class Measure:
    """Base class of every registered measure.

    Subclasses set :attr:`name` (the registry key), :attr:`description` (one line for ``--help`` and the
    report) and :attr:`needs_corpus` (True when :meth:`fit` must receive the training corpus), and implement
    :meth:`score`. Constructor keyword arguments are the measure's parameters; keep them in ``self.params``
    so :meth:`signature` records them.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    needs_corpus: ClassVar[bool] = False
    #: Included when ``creval evaluate`` runs with no ``--measures``.
    default: ClassVar[bool] = True

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = dict(params)

    def signature(self, reported_name: str | None = None) -> Signature:
        return Signature(name=reported_name or self.name, params=self.params)

    def fit(self, corpus: Corpus) -> Measure:  # noqa: B027 - optional hook
        """Build indexes over the training corpus once. Default: nothing to build."""
        return self

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        raise NotImplementedError


_REGISTRY: dict[str, type[Measure]] = {}


def register_measure(cls: type[Measure]) -> type[Measure]:
    """Class decorator: add a :class:`Measure` subclass to the registry under ``cls.name``."""
    if not cls.name:
        raise ValueError(f"{cls.__qualname__} has no name")
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing is not cls and existing.__qualname__ != cls.__qualname__:
        raise ValueError(f"measure {cls.name!r} registered twice ({existing.__qualname__}, {cls.__qualname__})")
    _REGISTRY[cls.name] = cls
    return cls


def measure_registry() -> dict[str, type[Measure]]:
    """All registered measures (runs plugin discovery first)."""
    from creval.plugins import discover

    discover()
    return dict(sorted(_REGISTRY.items()))


def get_measure(name: str) -> type[Measure]:
    registry = measure_registry()
    try:
        return registry[name]
    except KeyError:
        known = ", ".join(registry) or "(none)"
        from creval.errors import InputError

        raise InputError(f"unknown measure {name!r}; known measures: {known}") from None


def default_measures() -> list[str]:
    return [name for name, cls in measure_registry().items() if cls.default]


def results_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """A tidy results table with exactly :data:`TIDY_COLUMNS`, in that order."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=list(TIDY_COLUMNS))
    frame["value"] = frame["value"].astype(float)
    for col in ("system", "output_id", "input_id", "sample", "artist", "measure"):
        frame[col] = frame[col].astype("string")
    frame["checkpoint"] = pd.to_numeric(frame["checkpoint"], errors="coerce")
    return frame


ScoreFn = Callable[..., float]
