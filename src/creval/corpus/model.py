"""The data model: verses of a corpus and the outputs of generation systems.

A :class:`Verse` is a block of lines (a stanza, a rap verse) by one artist; a :class:`Corpus` is a list of
verses. An :class:`Output` is one generated text (or piece of music) with the fields of a generations JSONL row
(see DESIGN.md): ``id``, ``system``, ``text`` and the optional ``artist``, ``input_id``, ``input``, ``sample``,
``checkpoint``, ``music``, ``references``. Unknown JSONL fields are kept in ``extra``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Verse:
    """A verse: its lines (no trailing newline), who wrote it, where it came from.

    ``source`` is the file it was read from and ``line`` the 1-based line where it starts, so that messages
    about a verse can point at it. ``scheme`` holds a gold rhyme scheme when the format provides one
    (Chicago corpus ``RHYME`` lines), e.g. ``("a", "b", "a", "b")``.
    """

    artist: str
    lines: tuple[str, ...]
    title: str = ""
    source: str = ""
    line: int = 0
    scheme: tuple[str, ...] | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Corpus:
    """A list of verses with per-artist access."""

    verses: list[Verse] = field(default_factory=list)
    name: str = ""

    def __len__(self) -> int:
        return len(self.verses)

    def __iter__(self) -> Iterator[Verse]:
        return iter(self.verses)

    @property
    def artists(self) -> list[str]:
        seen: dict[str, None] = {}
        for verse in self.verses:
            seen.setdefault(verse.artist, None)
        return list(seen)

    def by_artist(self) -> dict[str, list[Verse]]:
        groups: dict[str, list[Verse]] = {}
        for verse in self.verses:
            groups.setdefault(verse.artist, []).append(verse)
        return groups

    def for_artist(self, artist: str) -> Corpus:
        return Corpus([v for v in self.verses if v.artist == artist], name=f"{self.name}:{artist}")

    def texts(self) -> list[str]:
        return [v.text for v in self.verses]

    def lines(self) -> list[str]:
        return [line for v in self.verses for line in v.lines]


@dataclass(frozen=True, slots=True)
class Output:
    """One generated output (a row of a generations JSONL file)."""

    id: str
    system: str
    text: str
    artist: str | None = None
    input_id: str | None = None
    input: str | None = None
    sample: str | None = None
    checkpoint: float | None = None
    music: str | None = None
    references: tuple[str, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    source: str = ""
    line: int = 0

    @property
    def lines(self) -> list[str]:
        return [ln for ln in self.text.split("\n") if ln.strip()]

    def as_row(self) -> dict[str, Any]:
        row: dict[str, Any] = {"id": self.id, "system": self.system, "text": self.text}
        for key in ("artist", "input_id", "input", "sample", "checkpoint", "music"):
            value = getattr(self, key)
            if value is not None:
                row[key] = value
        if self.references is not None:
            row["references"] = list(self.references)
        row.update(self.extra)
        return row


def outputs_by_system(outputs: Sequence[Output]) -> dict[str, list[Output]]:
    groups: dict[str, list[Output]] = {}
    for out in outputs:
        groups.setdefault(out.system, []).append(out)
    return groups
