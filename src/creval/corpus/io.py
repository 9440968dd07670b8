"""Readers and writers for corpora and generations.

Corpus formats (:func:`read_corpus` picks by what the path is):

- **folder**: one sub-folder per artist holding ``.txt`` files; verses are separated by blank lines.
- **JSONL** (``.jsonl``): rows ``{"artist": ..., "title": ..., "text": ...}``; ``text`` may hold several verses
  separated by blank lines.
- **CSV** (``.csv``): the same three columns, with a header row.
- **Chicago Rhyming Poetry Corpus raw** (a ``.txt`` file starting with an ``AUTHOR`` line, or a folder of them):
  ``AUTHOR``/``TITLE``/``RHYME``/``RHYME-POEM`` annotation lines; each stanza is a verse and its ``RHYME`` line
  becomes :attr:`Verse.scheme` (the ``a a *`` shorthand is expanded to ``a a b b c c …``).
- **chinese-poetry JSON** (``.json``): a list of poems with ``author`` and ``paragraphs`` (唐诗/宋词) or
  ``content`` (诗经, which has no author: the ``section`` is used as the artist).

Generations: JSONL, one output per row, ``{"id", "system", "text"}`` plus the optional fields of DESIGN.md
(``artist``, ``input_id``, ``input``, ``sample``, ``checkpoint``, ``music``) and ``references`` (a list of
reference texts). Every problem is reported as :class:`~creval.errors.InputError` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from creval.corpus.model import Corpus, Output, Verse
from creval.errors import InputError

_BLANK = re.compile(r"^\s*$")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --------------------------------------------------------------------------------------------------- helpers
def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """Read a text file (UTF-8 unless told otherwise); a missing/unreadable file or bytes that are not valid
    in the encoding become an InputError naming the line."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path) from None
    except IsADirectoryError:
        raise InputError("expected a file, found a folder", path) from None
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", path) from None
    try:
        text = data.decode(encoding)
    except LookupError:
        raise InputError(f"unknown text encoding {encoding!r}", path) from None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not valid {encoding} (byte 0x{data[exc.start]:02x} at offset {exc.start}); save the file as "
            "UTF-8 or pass its encoding (--encoding)",
            path,
            line,
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def split_verses(text: str) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(first_line_number, lines)`` for each blank-line-separated block (1-based line numbers)."""
    block: list[str] = []
    start = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        if _BLANK.match(raw):
            if block:
                yield start, block
                block = []
            continue
        if not block:
            start = number
        block.append(raw.strip())
    if block:
        yield start, block


@contextmanager
def atomic_write(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[Any]:
    """Open a temporary file next to ``path``; rename it over ``path`` only if the block succeeds.

    A path that exists and is not a regular file (``/dev/null``, a named pipe, ``/dev/stdout``) is written to
    directly: renaming over it would replace the device with a plain file.
    """
    path = Path(path)
    if path.exists() and not path.is_file():
        if path.is_dir():
            raise InputError("expected a file name, found a folder", path)
        kwargs = {"encoding": encoding, "newline": ""} if "b" not in mode else {}
        with open(path, mode, **kwargs) as handle:
            yield handle
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        kwargs = {"encoding": encoding, "newline": ""} if "b" not in mode else {}
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


OUTPUT_MARKER = ".creval-output"


def check_output_directory(path: str | Path) -> Path:
    """Refuse an output path that creval must not replace: a file, or a folder that holds files and is not a
    folder creval wrote itself (creval marks its output folders with a ``.creval-output`` file)."""
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise InputError("the output path exists and is not a folder; choose a folder name", path)
    if path.is_dir() and any(path.iterdir()) and not (path / OUTPUT_MARKER).is_file():
        raise InputError(
            "the output folder already holds files that creval did not write; choose a new or empty folder",
            path,
        )
    return path


@contextmanager
def atomic_directory(path: str | Path) -> Iterator[Path]:
    """Build an output folder under a temporary name and move it into place only if the block succeeds.

    A failure leaves the old folder (or nothing), never a half-written one. An existing folder is replaced
    only when it is empty or an earlier creval output (see :func:`check_output_directory`); anything else is
    refused before any work is done, so no user file is ever deleted.
    """
    path = check_output_directory(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        yield tmp
        (tmp / OUTPUT_MARKER).write_text("written by creval; this folder is replaced when creval writes it again\n")
        check_output_directory(path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    os.chmod(tmp, 0o777 & ~_umask())
    old = None
    if path.exists():
        old = path.with_name(f".{path.name}.old-{os.getpid()}")
        os.replace(path, old)
    os.replace(tmp, path)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


# --------------------------------------------------------------------------------------------------- corpus
def read_corpus(path: str | Path, *, format: str | None = None, encoding: str = "utf-8") -> Corpus:
    """Read a corpus in any supported format (see module docstring). Refuses an empty corpus.

    ``encoding`` applies to every file read (UTF-8 by default; some Chicago-corpus files are Mac Roman)."""
    path = Path(path)
    if not path.exists():
        raise InputError("corpus not found", path)
    fmt = format or _detect_corpus_format(path)
    readers = {
        "folder": read_corpus_folder,
        "jsonl": read_corpus_jsonl,
        "csv": read_corpus_csv,
        "chicago": read_chicago_raw,
        "chinese-poetry": read_chinese_poetry,
    }
    if fmt not in readers:
        raise InputError(f"unknown corpus format {fmt!r}; use one of {', '.join(readers)}", path)
    corpus = readers[fmt](path, encoding=encoding)
    if not corpus.verses:
        raise InputError("the corpus has no verses", path)
    corpus.name = corpus.name or path.stem
    return corpus


def _detect_corpus_format(path: Path) -> str:
    if path.is_dir():
        entries = [p for p in path.iterdir() if not p.name.startswith(".")]
        if any(p.is_dir() for p in entries):
            return "folder"
        txts = [p for p in entries if p.suffix == ".txt"]
        if txts and all(_is_chicago_file(p) for p in txts):
            return "chicago"
        if txts:
            raise InputError(
                "a corpus folder needs one sub-folder per artist holding .txt files "
                f"(found {len(txts)} .txt files directly inside)",
                path,
            )
        raise InputError("the corpus folder has no artist sub-folders", path)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    if suffix == ".json":
        return "chinese-poetry"
    if suffix == ".txt" and _is_chicago_file(path):
        return "chicago"
    raise InputError(
        "cannot tell the corpus format: expected a folder of artist folders, .jsonl, .csv, .json "
        "(chinese-poetry) or a Chicago-corpus .txt starting with an AUTHOR line",
        path,
    )


def _is_chicago_file(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(512).decode("utf-8", errors="ignore").lstrip("\ufeff").lstrip()
    except OSError:
        return False
    return re.match(r"AUTHOR\s", head) is not None


def read_corpus_folder(path: str | Path, encoding: str = "utf-8") -> Corpus:
    """One sub-folder per artist, ``.txt`` files inside (searched recursively), verses split on blank lines."""
    path = Path(path)
    verses: list[Verse] = []
    for artist_dir in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")):
        files = sorted(artist_dir.rglob("*.txt"))
        artist_verses: list[Verse] = []
        for file in files:
            text = read_text(file, encoding)
            title = file.stem
            for start, lines in split_verses(text):
                artist_verses.append(
                    Verse(artist=artist_dir.name, lines=tuple(lines), title=title, source=str(file), line=start)
                )
        if not artist_verses:
            what = "no .txt files" if not files else "only empty .txt files"
            raise InputError(f"artist folder {artist_dir.name!r} has no verses ({what})", artist_dir)
        verses.extend(artist_verses)
    return Corpus(verses, name=path.name)


def _require_str(value: Any, field: str, file: Path, line: int, *, required: bool = True) -> str | None:
    if value is None:
        if required:
            raise InputError(f"missing required field {field!r}", file, line)
        return None
    if not isinstance(value, str):
        raise InputError(f"field {field!r} must be a string, got {type(value).__name__}", file, line)
    return value


def _jsonl_rows(path: Path, encoding: str = "utf-8") -> Iterator[tuple[int, dict[str, Any]]]:
    text = read_text(path, encoding)
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg} at column {exc.colno})", path, number) from None
        if not isinstance(row, dict):
            raise InputError(f"each line must be a JSON object, got {type(row).__name__}", path, number)
        yield number, row


def _verses_from_row(artist: str, title: str, text: str, file: Path, line: int) -> list[Verse]:
    return [
        Verse(artist=artist, lines=tuple(lines), title=title, source=str(file), line=line)
        for _, lines in split_verses(text.replace("\r\n", "\n"))
    ]


def read_corpus_jsonl(path: str | Path, encoding: str = "utf-8") -> Corpus:
    path = Path(path)
    verses: list[Verse] = []
    for number, row in _jsonl_rows(path, encoding):
        artist = _require_str(row.get("artist"), "artist", path, number)
        text = _require_str(row.get("text"), "text", path, number)
        title = _require_str(row.get("title"), "title", path, number, required=False) or ""
        if not artist.strip():
            raise InputError("field 'artist' is empty", path, number)
        verses.extend(_verses_from_row(artist, title, text, path, number))
    return Corpus(verses, name=path.stem)


def read_corpus_csv(path: str | Path, encoding: str = "utf-8") -> Corpus:
    path = Path(path)
    text = read_text(path, encoding)
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None:
        raise InputError("the CSV file is empty", path)
    missing = {"artist", "text"} - set(reader.fieldnames)
    if missing:
        raise InputError(f"CSV header lacks column(s) {', '.join(sorted(missing))}", path, 1)
    verses: list[Verse] = []
    try:
        for row in reader:
            number = reader.line_num
            artist, body = row.get("artist"), row.get("text")
            if artist is None or body is None:
                raise InputError("row has fewer columns than the header", path, number)
            if not artist.strip():
                raise InputError("column 'artist' is empty", path, number)
            verses.extend(_verses_from_row(artist, row.get("title") or "", body, path, number))
    except csv.Error as exc:
        raise InputError(f"malformed CSV ({exc})", path, reader.line_num) from None
    return Corpus(verses, name=path.stem)


_RHYME_LINE = re.compile(r"^(RHYME|RHYME-POEM)(\s.*)?$")
_HEAD_LINE = re.compile(r"^(AUTHOR|TITLE)(?:\s+(.*))?$")


def expand_scheme(labels: Sequence[str], n_lines: int) -> tuple[str, ...]:
    """Expand the Chicago ``*`` shorthand: ``a a *`` → ``a a b b c c …`` (the pattern repeated with new
    letters) to ``n_lines`` labels; a scheme without ``*`` is returned as it is."""
    labels = list(labels)
    if "*" not in labels:
        return tuple(labels)
    pattern = labels[: labels.index("*")]
    if not pattern:
        return tuple(labels)
    distinct = list(dict.fromkeys(pattern))
    out: list[str] = []
    rep = 0
    while len(out) < n_lines:
        mapping = {lab: _label(rep * len(distinct) + i) for i, lab in enumerate(distinct)}
        out.extend(mapping[lab] for lab in pattern)
        rep += 1
    return tuple(out[:n_lines])


def _label(i: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[i] if i < 26 else letters[i % 26] + str(i // 26)


def read_chicago_raw(path: str | Path, encoding: str = "utf-8") -> Corpus:
    """Chicago Rhyming Poetry Corpus raw file(s): stanzas become verses, ``RHYME`` lines their scheme.

    ``path`` may be one ``.txt`` file or a folder of them. The artist is the ``AUTHOR`` name.
    """
    path = Path(path)
    files = sorted(path.glob("*.txt")) if path.is_dir() else [path]
    verses: list[Verse] = []
    for file in files:
        verses.extend(_read_chicago_file(file, encoding))
    return Corpus(verses, name=path.stem)


def _read_chicago_file(file: Path, encoding: str = "utf-8") -> list[Verse]:
    text = read_text(file, encoding)
    author = ""
    title = ""
    scheme: list[str] | None = None
    verses: list[Verse] = []
    block: list[str] = []
    start = 0

    def flush() -> None:
        nonlocal block, scheme
        if block:
            if not author:
                raise InputError("verse text before any AUTHOR line", file, start)
            full = expand_scheme(scheme, len(block)) if scheme else None
            if full is not None and len(full) != len(block):
                full = None  # the annotation does not fit this stanza: keep the text, drop the label
            verses.append(Verse(author, tuple(block), title=title, source=str(file), line=start, scheme=full))
            scheme = None
        block = []

    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip()
        head = _HEAD_LINE.match(line)
        if head:
            flush()
            if head.group(1) == "AUTHOR":
                author = (head.group(2) or "").strip()
            else:
                title = (head.group(2) or "").strip()
            continue
        match = _RHYME_LINE.match(line)
        if match:
            flush()
            if match.group(1) == "RHYME":
                scheme = (match.group(2) or "").split() or None
            continue
        if not line.strip():
            flush()
            continue
        if not block:
            start = number
        block.append(line.strip())
    flush()
    return verses


def read_chinese_poetry(path: str | Path, encoding: str = "utf-8") -> Corpus:
    """chinese-poetry JSON: a list of poems with ``author`` + ``paragraphs``, or ``content`` (诗经)."""
    path = Path(path)
    text = read_text(path, encoding)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", path, exc.lineno) from None
    if not isinstance(data, list):
        raise InputError("expected a JSON list of poems", path, 1)
    verses: list[Verse] = []
    for index, poem in enumerate(data):
        if not isinstance(poem, dict):
            raise InputError(f"poem #{index} is not an object", path)
        lines = poem.get("paragraphs", poem.get("content"))
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise InputError(f"poem #{index} has no 'paragraphs'/'content' list of strings", path)
        artist = poem.get("author") or poem.get("section") or poem.get("chapter") or "佚名"
        title = poem.get("title") or poem.get("rhythmic") or ""
        lines = [ln.strip() for ln in lines if ln.strip()]
        if lines:
            verses.append(Verse(str(artist), tuple(lines), title=str(title), source=str(path), line=0))
    return Corpus(verses, name=path.stem)


def write_corpus_jsonl(corpus: Corpus, path: str | Path) -> None:
    with atomic_write(path) as handle:
        for verse in corpus:
            row = {"artist": verse.artist, "title": verse.title, "text": verse.text}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------------------------------- outputs
_OPTIONAL_STR = ("artist", "input_id", "input", "music")


def read_generations(path: str | Path, encoding: str = "utf-8") -> list[Output]:
    """Read a generations JSONL file, validating every row (see module docstring)."""
    path = Path(path)
    outputs: list[Output] = []
    first_seen: dict[str, int] = {}
    for number, row in _jsonl_rows(path, encoding):
        outputs.append(parse_output(row, path, number))
        oid = outputs[-1].id
        if oid in first_seen:
            raise InputError(f"duplicate output id {oid!r} (first used on line {first_seen[oid]})", path, number)
        first_seen[oid] = number
    if not outputs:
        raise InputError("the generations file has no rows", path)
    return outputs


def parse_output(row: dict[str, Any], path: Path | str = "<data>", number: int = 0) -> Output:
    """Validate one generations row and build an :class:`Output`."""
    path = Path(path)
    if "id" not in row:
        raise InputError("missing required field 'id'", path, number)
    oid = row["id"]
    if isinstance(oid, bool) or not isinstance(oid, (str, int)):
        raise InputError(f"field 'id' must be a string or integer, got {type(oid).__name__}", path, number)
    system = _require_str(row.get("system"), "system", path, number)
    if not system.strip():
        raise InputError("field 'system' is empty", path, number)
    if "text" not in row and row.get("music") is not None:
        text = ""
    else:
        text = _require_str(row.get("text"), "text", path, number)
    optional = {key: _require_str(row.get(key), key, path, number, required=False) for key in _OPTIONAL_STR}
    sample = row.get("sample")
    if sample is not None:
        if isinstance(sample, bool) or not isinstance(sample, (str, int)):
            raise InputError("field 'sample' must be an integer or \"best\"", path, number)
        sample = str(sample)
    checkpoint = row.get("checkpoint")
    if checkpoint is not None:
        if isinstance(checkpoint, bool) or not isinstance(checkpoint, (int, float)):
            raise InputError(
                f"field 'checkpoint' must be a number, got {type(checkpoint).__name__}", path, number
            )
        checkpoint = float(checkpoint)
    refs = row.get("references")
    if refs is not None:
        if isinstance(refs, str):
            refs = [refs]
        if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
            raise InputError("field 'references' must be a list of strings", path, number)
        refs = tuple(refs)
    known = {"id", "system", "text", "sample", "checkpoint", "references", *_OPTIONAL_STR}
    extra = {k: v for k, v in row.items() if k not in known}
    return Output(
        id=str(oid),
        system=system,
        text=text.replace("\r\n", "\n"),
        sample=sample,
        checkpoint=checkpoint,
        references=refs,
        extra=extra,
        source=str(path),
        line=number,
        **optional,
    )


def write_generations(outputs: Iterable[Output], path: str | Path) -> None:
    with atomic_write(path) as handle:
        for out in outputs:
            row = out.as_row()
            if row.get("checkpoint") is not None and float(row["checkpoint"]).is_integer():
                row["checkpoint"] = int(row["checkpoint"])
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
