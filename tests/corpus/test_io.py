from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from creval.corpus.io import (
    atomic_directory,
    expand_scheme,
    read_chicago_raw,
    read_corpus,
    read_generations,
    write_generations,
)
from creval.corpus.model import Output
from creval.errors import InputError


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_folder_corpus_splits_verses_on_blank_lines(tmp_path: Path) -> None:
    write(tmp_path / "c" / "Nas" / "a.txt", "line one\nline two\n\n\nline three\n")
    write(tmp_path / "c" / "Rakim" / "b.txt", "\n  verse  \n")
    corpus = read_corpus(tmp_path / "c")
    assert corpus.artists == ["Nas", "Rakim"]
    nas = corpus.by_artist()["Nas"]
    assert [v.lines for v in nas] == [("line one", "line two"), ("line three",)]
    assert nas[1].line == 5 and nas[1].source.endswith("a.txt")
    assert corpus.by_artist()["Rakim"][0].lines == ("verse",)


def test_jsonl_and_csv_corpus(tmp_path: Path) -> None:
    rows = [{"artist": "A", "title": "t", "text": "x y\nz\n\nsecond"}, {"artist": "B", "text": "b"}]
    write(tmp_path / "c.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    corpus = read_corpus(tmp_path / "c.jsonl")
    assert [(v.artist, v.lines) for v in corpus] == [("A", ("x y", "z")), ("A", ("second",)), ("B", ("b",))]
    write(tmp_path / "c.csv", 'artist,title,text\nA,t,"one\ntwo"\nB,,three\n')
    corpus = read_corpus(tmp_path / "c.csv")
    assert [(v.artist, v.lines) for v in corpus] == [("A", ("one", "two")), ("B", ("three",))]


def test_chicago_raw_real_file_has_schemes(shared_data: Path) -> None:
    corpus = read_chicago_raw(shared_data / "chicago-rhyme" / "english_raw" / "wyatt.txt")
    assert corpus.artists == ["Thomas Wyatt"]
    first = corpus.verses[0]
    assert first.lines[0].startswith("MY mother's maids")
    assert first.scheme == ("a", "b", "a") and first.title == "Satire II"
    assert all(v.scheme is None or len(v.scheme) == len(v.lines) for v in corpus)
    # no annotation line leaks into the text
    assert not any(line.startswith(("RHYME", "TITLE", "AUTHOR")) for v in corpus for line in v.lines)


def test_chicago_folder_all_poets(shared_data: Path) -> None:
    raw = shared_data / "chicago-rhyme" / "english_raw"
    utf8 = [p for p in raw.glob("*.txt") if p.stem not in {"drayton", "finch", "jonson", "shelley", "sidney"}]
    total = sum(len(read_corpus(p)) for p in utf8)
    assert total > 2000
    # a Mac Roman file is refused with its line, and read with the right encoding
    with pytest.raises(InputError) as err:
        read_corpus(raw / "drayton.txt")
    assert "drayton.txt:1124" in err.value.message and "UTF-8" in err.value.message
    assert len(read_corpus(raw / "drayton.txt", encoding="mac_roman")) > 100


def test_expand_scheme_shorthand() -> None:
    assert expand_scheme(["a", "a", "*"], 6) == ("a", "a", "b", "b", "c", "c")
    assert expand_scheme(["a", "b", "a", "b", "*"], 6) == ("a", "b", "a", "b", "c", "d")
    assert expand_scheme(["a", "b"], 2) == ("a", "b")


def test_chinese_poetry(shared_data: Path) -> None:
    tang = read_corpus(shared_data / "chinese-poetry" / "tang300.json")
    assert len(tang) == 366 and tang.verses[0].artist == "駱賓王"
    shijing = read_corpus(shared_data / "chinese-poetry" / "shijing.json")
    assert len(shijing) == 305 and shijing.verses[0].artist == "周南"


def test_generations_roundtrip(tmp_path: Path) -> None:
    outs = [
        Output("1", "s", "a\nb", artist="A", input_id="i", sample="best", checkpoint=3.0, references=("r",)),
        Output("2", "s", "c", extra={"note": "x"}),
    ]
    write_generations(outs, tmp_path / "g.jsonl")
    back = read_generations(tmp_path / "g.jsonl")
    assert [o.as_row() for o in back] == [o.as_row() for o in outs]
    assert json.loads((tmp_path / "g.jsonl").read_text().splitlines()[0])["checkpoint"] == 3


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"id": 1, "system": "s"}\n', ":1: missing required field 'text'"),
        ('{"id": 1, "system": "s", "text": 5}\n', ":1: field 'text' must be a string, got int"),
        ('{"id": 1, "system": "s", "text": "a"}\n{"id": 1, "system": "s", "text": "b"}\n',
         ":2: duplicate output id '1' (first used on line 1)"),
        ('{"id": 1, "system": "s", "text": "a"}\n{"id": 2, \n', ":2: invalid JSON"),
        ("[1, 2]\n", ":1: each line must be a JSON object"),
        ('{"system": "s", "text": "a"}\n', ":1: missing required field 'id'"),
        ('{"id": 1, "system": "s", "text": "a", "checkpoint": "x"}\n', ":1: field 'checkpoint' must be a number"),
        ("\n\n", "the generations file has no rows"),
    ],
)
def test_generations_bad_rows(tmp_path: Path, content: str, expected: str) -> None:
    path = write(tmp_path / "g.jsonl", content)
    with pytest.raises(InputError) as err:
        read_generations(path)
    assert expected in err.value.message
    assert str(path) in err.value.message


def test_non_utf8_and_missing_files(tmp_path: Path) -> None:
    path = write(tmp_path / "g.jsonl", b'{"id": 1, "system": "s", "text": "a"}\n{"id": 2, "text": "caf\xe9"}\n')
    with pytest.raises(InputError, match=r"g\.jsonl:2: not valid utf-8"):
        read_generations(path)
    with pytest.raises(InputError, match="file not found"):
        read_generations(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="corpus not found"):
        read_corpus(tmp_path / "nope")


def test_empty_corpus_and_empty_artist(tmp_path: Path) -> None:
    (tmp_path / "c").mkdir()
    with pytest.raises(InputError, match="no artist sub-folders"):
        read_corpus(tmp_path / "c")
    write(tmp_path / "c" / "A" / "a.txt", "x\n")
    (tmp_path / "c" / "B").mkdir()
    with pytest.raises(InputError, match=r"artist folder 'B' has no verses \(no \.txt files\)"):
        read_corpus(tmp_path / "c")
    write(tmp_path / "c" / "B" / "b.txt", "\n \n")
    with pytest.raises(InputError, match="only empty"):
        read_corpus(tmp_path / "c")
    write(tmp_path / "e.jsonl", "")
    with pytest.raises(InputError, match="no verses"):
        read_corpus(tmp_path / "e.jsonl")


def test_atomic_directory_leaves_nothing_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with atomic_directory(target) as tmp:
            (tmp / "half.csv").write_text("x")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(row=st.dictionaries(st.sampled_from(["id", "system", "text", "sample", "checkpoint", "artist",
                                            "references", "other"]), json_values, max_size=8))
def test_generations_any_row_is_read_or_refused_clearly(tmp_path: Path, row: dict) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    try:
        outs = read_generations(path)
    except InputError as err:
        assert err.file == str(path) and err.line == 1 and err.problem
    else:
        assert len(outs) == 1 and isinstance(outs[0].text, str) and isinstance(outs[0].id, str)


def test_unreadable_file_is_a_clear_error(tmp_path: Path) -> None:
    """A file whose bytes cannot be read: mode 000 for an ordinary user; as root (CI runs as root, and root
    reads any mode) /proc/self/mem, whose read fails with an I/O error."""
    import os

    if os.geteuid() == 0:
        path, reason = Path("/proc/self/mem"), "cannot read file (Input/output error)"
    else:
        path = tmp_path / "g.jsonl"
        path.write_text('{"id": 1, "system": "s", "text": "a"}\n')
        os.chmod(path, 0o000)
        reason = "cannot read file (Permission denied)"
    with pytest.raises(InputError) as err:
        read_generations(path)
    assert err.value.message == f"{path}: {reason}"
    with pytest.raises(InputError, match="expected a file, found a folder"):
        read_generations(tmp_path)


def test_atomic_write_to_a_special_file_keeps_it(tmp_path: Path) -> None:
    """Writing results to a named pipe (or /dev/null) must write through it, never replace it with a file."""
    import os
    import stat
    import threading

    from creval.corpus.io import atomic_write

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    with atomic_write(fifo) as handle:
        handle.write("row\n")
    reader.join(timeout=10)
    assert received == ["row\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    with pytest.raises(InputError, match="found a folder"):
        with atomic_write(tmp_path):
            pass
