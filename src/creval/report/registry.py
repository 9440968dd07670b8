"""Report sections register themselves; the report builder renders them in order.

A section is a function ``render(ctx: ReportContext) -> str | None`` returning an HTML fragment (or None to
leave the section out, e.g. when its measures were not computed). Register it with::

    @register_section("rhyme", title="Rhyme", order=40)
    def rhyme_section(ctx): ...

Put section modules under ``creval/report/sections/`` or next to the measures they present (any module in a
plugin package, see :mod:`creval.plugins`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from creval.corpus.model import Corpus, Output
    from creval.metrics.base import Signature


@dataclass
class ReportContext:
    """Everything a section may read. Sections read the tidy ``results`` table, never a metric's internals;
    ``artifacts`` carries data a measure prepared for its own section (keyed by measure name)."""

    results: pd.DataFrame
    summary: pd.DataFrame | None = None
    corpus: Corpus | None = None
    outputs: list[Output] = field(default_factory=list)
    signatures: dict[str, Signature] = field(default_factory=dict)
    artifacts: dict[str, Any] = field(default_factory=dict)
    corpus_stats: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)
    title: str = "creval report"


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    order: int
    render: Callable[[ReportContext], str | None]


_SECTIONS: dict[str, Section] = {}


def register_section(key: str, *, title: str, order: int = 100) -> Callable:
    def deco(fn: Callable[[ReportContext], str | None]) -> Callable[[ReportContext], str | None]:
        _SECTIONS[key] = Section(key=key, title=title, order=order, render=fn)
        return fn

    return deco


def sections() -> list[Section]:
    from creval.plugins import discover

    discover()
    return sorted(_SECTIONS.values(), key=lambda s: (s.order, s.key))
