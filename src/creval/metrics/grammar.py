"""Grammar error rate: errors found by a grammar checker, per character and per line, by category.

The lyrics evaluation work divides the number of grammar-checker errors by the length of the text in
characters; creval reports that (``grammar_error_rate``, errors / ``len(text)``, the text as given, spaces and
newlines included) and errors per non-blank line (``grammar_errors_per_line``). Errors of the categories in
``exclude`` (default: ``spelling``, because creative text spells on purpose — rap spellings, archaic forms —
and a spell checker would mostly measure the lexicon) are not counted; pass ``exclude=()`` to count all.

Backends:

- ``"harper"`` (default, offline, in-process): Harper via ``harper-py``, English, plain-text mode. Its lint
  kinds map to creval categories (table :data:`HARPER_CATEGORIES`).
- ``"languagetool"``: ``language_tool_python`` (the ``languagetool`` extra), used only when the user points it
  at a LanguageTool server (``server="http://host:8081"``) or at a local LanguageTool directory
  (``path="/opt/LanguageTool-6.6"``, started with the local Java). creval never downloads LanguageTool.
  LanguageTool categories map as in :data:`LT_CATEGORIES`.

creval categories: ``spelling``, ``grammar``, ``punctuation``, ``capitalization``, ``word_choice``, ``style``,
``repetition``, ``slang`` (non-standard, colloquial or regional forms), ``other``. The backend's own category
is kept in :attr:`GrammarError.kind`; ``exclude`` matches either (case-insensitive).

Undefined (NaN, with the reason in the notes): empty text; text without any letter or digit (punctuation only);
text containing characters of an unspaced script (CJK, Thai, …), which an English checker cannot judge.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from creval.corpus.model import Output
from creval.errors import InputError
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure
from creval.text.tokenize import has_unspaced_script

BACKENDS = ("harper", "languagetool")
CATEGORIES = (
    "spelling",
    "grammar",
    "punctuation",
    "capitalization",
    "word_choice",
    "style",
    "repetition",
    "slang",
    "other",
)

#: Harper lint kind → creval category.
HARPER_CATEGORIES: dict[str, str] = {
    "Spelling": "spelling",
    "Typo": "spelling",
    "Agreement": "grammar",
    "Grammar": "grammar",
    "BoundaryError": "grammar",
    "Punctuation": "punctuation",
    "Formatting": "punctuation",
    "Capitalization": "capitalization",
    "WordChoice": "word_choice",
    "Eggcorn": "word_choice",
    "Malapropism": "word_choice",
    "Usage": "word_choice",
    "Style": "style",
    "Readability": "style",
    "Enhancement": "style",
    "Redundancy": "repetition",
    "Repetition": "repetition",
    "Nonstandard": "slang",
    "Regionalism": "slang",
    "Miscellaneous": "other",
}

#: LanguageTool category id → creval category.
LT_CATEGORIES: dict[str, str] = {
    "TYPOS": "spelling",
    "GRAMMAR": "grammar",
    "PUNCTUATION": "punctuation",
    "TYPOGRAPHY": "punctuation",
    "CASING": "capitalization",
    "CONFUSED_WORDS": "word_choice",
    "SEMANTICS": "word_choice",
    "COMPOUNDING": "grammar",
    "STYLE": "style",
    "PLAIN_ENGLISH": "style",
    "REDUNDANCY": "repetition",
    "REPETITIONS": "repetition",
    "REPETITIONS_STYLE": "repetition",
    "COLLOQUIALISMS": "slang",
    "NONSTANDARD_PHRASES": "slang",
    "REGIONALISMS": "slang",
    "MISC": "other",
}


@dataclass(frozen=True)
class GrammarError:
    """One error: creval ``category``, the checker's ``message``, ``offset``/``length`` in characters of the
    checked text, the backend's own category (``kind``) and rule id when it gives one."""

    category: str
    message: str
    offset: int
    length: int
    kind: str = ""
    rule: str = ""


# --------------------------------------------------------------------------------------------------- backends

_HARPER: dict[int, Any] = {}


def _harper_linter(dialect: int = 0) -> Any:
    """One Harper linter per dialect per process (building one loads the dictionary: about a second)."""
    linter = _HARPER.get(dialect)
    if linter is None:
        from harper import Linter

        linter = _HARPER[dialect] = Linter(dialect)
    return linter


def _from_lint(lint: Any) -> GrammarError:
    return GrammarError(
        category=HARPER_CATEGORIES.get(lint.lint_kind, "other"),
        message=lint.message,
        offset=lint.span.start,
        length=lint.span.end - lint.span.start,
        kind=lint.lint_kind,
    )


def _harper_errors(text: str, dialect: int = 0) -> list[GrammarError]:
    return [_from_lint(lint) for lint in _harper_linter(dialect).lint(text, language="plaintext")]


def harper_errors_many(
    texts: Sequence[str], workers: int | None = None, dialect: int = 0
) -> list[list[GrammarError]]:
    """Harper errors of many texts. Harper releases the GIL while linting but a ``Linter`` is not thread-safe,
    so with ``workers`` > 1 (default: the CPU count, at most 8) and enough texts each thread lints a contiguous
    share of the texts with a linter of its own (each costs about a second to build)."""
    if workers is None:
        workers = min(8, os.cpu_count() or 1)
    if workers <= 1 or len(texts) < 100 * workers:
        return [_harper_errors(t, dialect) for t in texts]
    from concurrent.futures import ThreadPoolExecutor

    from harper import Linter

    bounds = np.linspace(0, len(texts), workers + 1).astype(int)

    def run(part: int) -> list[list[GrammarError]]:
        linter = _harper_linter(dialect) if part == 0 else Linter(dialect)
        return [
            [_from_lint(lint) for lint in linter.lint(text, language="plaintext")]
            for text in texts[bounds[part] : bounds[part + 1]]
        ]

    with ThreadPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(run, range(workers)))
    return [errs for part in parts for errs in part]


class LanguageToolBackend:
    """A ``language_tool_python.LanguageTool`` on a server URL or a local LanguageTool directory (never a
    download). Build once, call :meth:`errors` per text, :meth:`close` at the end."""

    def __init__(self, server: str | None = None, path: str | None = None, language: str = "en-US") -> None:
        if (server is None) == (path is None):
            raise InputError(
                "the languagetool backend needs exactly one of server= (a LanguageTool server URL) or "
                "path= (a local LanguageTool directory); creval does not download LanguageTool"
            )
        try:
            import language_tool_python
        except ImportError:  # pragma: no cover - depends on the installed extras
            raise InputError(
                "the languagetool backend needs language-tool-python: pip install 'creval[languagetool]'"
            ) from None
        if path is not None:
            if not os.path.isdir(path):
                raise InputError("not a LanguageTool directory", file=path)
            previous = os.environ.get("LTP_JAR_DIR_PATH")
            os.environ["LTP_JAR_DIR_PATH"] = str(path)
            try:
                self._tool = language_tool_python.LanguageTool(language)
            finally:
                if previous is None:
                    os.environ.pop("LTP_JAR_DIR_PATH", None)
                else:
                    os.environ["LTP_JAR_DIR_PATH"] = previous
        else:
            try:
                self._tool = language_tool_python.LanguageTool(language, remote_server=server)
            except Exception as exc:  # connection refused, bad JSON, …
                raise InputError(f"cannot use the LanguageTool server: {exc}", file=server) from None
        self.where = server or path

    def errors(self, text: str) -> list[GrammarError]:
        out = []
        for m in self._tool.check(text):
            kind = str(getattr(m, "category", "") or "")
            category = LT_CATEGORIES.get(kind, "other")
            if getattr(m, "rule_issue_type", "") == "misspelling":
                category = "spelling"
            out.append(
                GrammarError(
                    category=category,
                    message=str(m.message),
                    offset=int(m.offset),
                    length=int(m.error_length),
                    kind=kind,
                    rule=str(getattr(m, "rule_id", "") or ""),
                )
            )
        return out

    def close(self) -> None:
        close = getattr(self._tool, "close", None)
        if close is not None:
            close()


_LT: dict[tuple[str | None, str | None, str], LanguageToolBackend] = {}


def _lt_backend(server: str | None, path: str | None, language: str) -> LanguageToolBackend:
    key = (server, path, language)
    if key not in _LT:
        _LT[key] = LanguageToolBackend(server=server, path=path, language=language)
    return _LT[key]


# ------------------------------------------------------------------------------------------------- functions


def grammar_errors(
    text: str,
    backend: str = "harper",
    *,
    server: str | None = None,
    path: str | None = None,
    language: str = "en-US",
) -> list[GrammarError]:
    """All errors the checker finds in ``text`` (every category; see :func:`grammar_error_rate` to exclude)."""
    if backend == "harper":
        return _harper_errors(text)
    if backend == "languagetool":
        return _lt_backend(server, path, language).errors(text)
    raise ValueError(f"unknown grammar backend {backend!r}; choose one of {', '.join(BACKENDS)}")


def undefined_reason(text: str) -> str | None:
    """Why the grammar error rate of ``text`` is undefined (None when it is defined)."""
    if not text.strip():
        return "empty text"
    if not any(ch.isalnum() for ch in text):
        return "no words (punctuation only)"
    if has_unspaced_script(text):
        return "contains an unspaced script (CJK, Thai, …): an English grammar checker cannot judge it"
    return None


def _excluded(err: GrammarError, exclude: Iterable[str]) -> bool:
    ex = {e.lower() for e in exclude}
    return err.category.lower() in ex or err.kind.lower() in ex


def count_errors(errors: Sequence[GrammarError], exclude: Iterable[str] = ("spelling",)) -> int:
    """Number of errors whose category (creval's or the backend's) is not in ``exclude``."""
    ex = tuple(exclude)
    return sum(1 for e in errors if not _excluded(e, ex))


def grammar_error_rate(
    text: str,
    per: str = "char",
    exclude: Iterable[str] = ("spelling",),
    backend: str = "harper",
    errors: Sequence[GrammarError] | None = None,
    **backend_options: Any,
) -> float:
    r"""Grammar errors per character or per line.

    .. math:: \mathrm{rate}_{char} = \frac{|E \setminus E_{excluded}|}{|\mathrm{text}|}, \qquad
              \mathrm{rate}_{line} = \frac{|E \setminus E_{excluded}|}{\#\text{non-blank lines}}

    (the lyrics evaluation work divides the checker's error count by the length in characters). NaN when
    :func:`undefined_reason` gives a reason. ``errors`` may pass errors already found for this text.
    """
    if per not in ("char", "line"):
        raise ValueError("per must be 'char' or 'line'")
    if undefined_reason(text) is not None:
        return math.nan
    found = errors if errors is not None else grammar_errors(text, backend, **backend_options)
    n = count_errors(found, exclude)
    if per == "char":
        return n / len(text)
    return n / sum(1 for ln in text.split("\n") if ln.strip())


@register_measure
class GrammarMeasure(Measure):
    """Grammar error rate of each output (module docstring)."""

    name = "grammar"
    description = (
        "grammar-checker errors per character and per line (spelling excluded by default; Harper offline)"
    )

    def __init__(
        self,
        backend: str = "harper",
        exclude: Sequence[str] | str = ("spelling",),
        server: str | None = None,
        path: str | None = None,
        language: str = "en-US",
        workers: int | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise InputError(f"unknown grammar backend {backend!r}; choose one of {', '.join(BACKENDS)}")
        if isinstance(exclude, str):
            exclude = tuple(e.strip() for e in exclude.split(",") if e.strip())
        super().__init__(
            backend=backend,
            exclude=tuple(exclude),
            server=server,
            path=path,
            language=language,
            workers=workers,
        )
        if backend == "languagetool":
            _lt_backend(server, path, language)  # fail early with a clear message

    def signature(self, reported_name: str | None = None) -> Signature:
        p = self.params
        if p["backend"] == "harper":
            import importlib.metadata

            model = f"harper-py-{importlib.metadata.version('harper-py')}"
        else:
            model = f"languagetool:{p['language']}"
        params = {"exclude": ",".join(p["exclude"]) or "none"}
        if reported_name == "grammar_error_rate":
            params["per"] = "char"
        elif reported_name == "grammar_errors_per_line":
            params["per"] = "line"
        return Signature(reported_name or self.name, params=params, model=model)

    def score(self, outputs: Sequence[Output]) -> MeasureResult:
        p = self.params
        opts = {"server": p["server"], "path": p["path"], "language": p["language"]}
        n = len(outputs)
        per_char = np.full(n, np.nan)
        per_line = np.full(n, np.nan)
        count = np.full(n, np.nan)
        notes = []
        by_category: dict[str, Counter] = {}
        examples: list[dict[str, Any]] = []
        defined = []
        for i, o in enumerate(outputs):
            reason = undefined_reason(o.text)
            if reason is not None:
                notes.append(f"grammar undefined for output {o.id!r}: {reason}")
            else:
                defined.append(i)
        if p["backend"] == "harper":
            found = harper_errors_many([outputs[i].text for i in defined], p["workers"])
        else:
            found = [grammar_errors(outputs[i].text, p["backend"], **opts) for i in defined]
        for i, errs in zip(defined, found):
            o = outputs[i]
            kept = [e for e in errs if not _excluded(e, p["exclude"])]
            count[i] = len(kept)
            per_char[i] = len(kept) / len(o.text)
            per_line[i] = len(kept) / sum(1 for ln in o.text.split("\n") if ln.strip())
            tally = by_category.setdefault(o.system, Counter())
            tally.update(e.category for e in errs)
            for e in kept:
                if len(examples) < 30:
                    examples.append(
                        {
                            "system": o.system,
                            "output_id": o.id,
                            "category": e.category,
                            "message": e.message,
                            "excerpt": o.text[e.offset : e.offset + e.length],
                        }
                    )
        values = {
            "grammar_error_rate": per_char,
            "grammar_errors_per_line": per_line,
            "grammar_error_count": count,
        }
        return MeasureResult(
            values=values,
            signatures={name: self.signature(name) for name in values},
            artifacts={
                "by_category": {s: dict(c) for s, c in by_category.items()},
                "examples": examples,
                "exclude": list(p["exclude"]),
            },
            notes=notes,
        )
