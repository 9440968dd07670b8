"""The CLI as a user runs it: a subprocess for exit codes and messages, click's runner for the rest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from creval.cli import main


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "creval", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture()
def corpus_dir(tmp_path: Path) -> Path:
    words = " ".join(f"word{i}" for i in range(30))
    for artist in ("Ann", "Bob"):
        folder = tmp_path / "corpus" / artist
        folder.mkdir(parents=True)
        (folder / "songs.txt").write_text(f"{words}\nsecond line of {artist}\n\nanother verse here\n", "utf-8")
    return tmp_path / "corpus"


@pytest.fixture()
def gens(tmp_path: Path) -> Path:
    rows = [
        {"id": "a1", "system": "sys1", "text": "another verse here", "artist": "Ann"},
        {"id": "a2", "system": "sys1", "text": "brand new words\nand more words", "artist": "Ann"},
        {"id": "b1", "system": "sys2", "text": "", "artist": "Bob"},
    ]
    path = tmp_path / "gens.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_help_reads_well() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for command in ("evaluate", "corpus", "demo", "measures"):
        assert command in result.output
    for sub in (["evaluate", "--help"], ["corpus", "stats", "--help"], ["corpus", "clean", "--help"],
                ["demo", "--help"]):
        res = CliRunner().invoke(main, sub)
        assert res.exit_code == 0 and "Usage:" in res.output


def test_evaluate_writes_everything(corpus_dir: Path, gens: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = run("evaluate", "--corpus", str(corpus_dir), "--generations", str(gens), "--out", str(out),
              "--measures", "length,lexical_diversity,verse_copy")
    assert res.returncode == 0, res.stderr
    for name in ("results.csv", "results.parquet", "summary.csv", "signatures.json", "report.html",
                 "corpus_stats.csv"):
        assert (out / name).is_file(), name
    table = pd.read_csv(out / "results.csv")
    assert list(table.columns) == ["system", "output_id", "input_id", "sample", "checkpoint", "artist", "measure",
                                   "value"]
    copy = table[(table.measure == "verse_copy")].set_index("output_id")["value"]
    assert copy["a1"] == 1 and copy["a2"] == 0
    ttr = table[(table.measure == "ttr")].set_index("output_id")["value"]
    assert ttr["a2"] == pytest.approx(5 / 6) and pd.isna(ttr["b1"])
    sigs = json.loads((out / "signatures.json").read_text())
    assert sigs["ttr"]["string"].startswith("ttr|") and "version:creval-" in sigs["ttr"]["string"]
    assert pd.read_parquet(out / "results.parquet").shape == table.shape


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda g, c: g.write_text('{"id": 1, "system": "s"}\n'), "gens.jsonl:1: missing required field 'text'"),
        (lambda g, c: g.write_text('{"id": 1, "system": "s", "text": ["x"]}\n'), "gens.jsonl:1: field 'text'"),
        (lambda g, c: g.write_text('{"id": 1, "system": "s", "text": "a"}\n{"id": 1, "system": "s", "text": "b"}\n'),
         "gens.jsonl:2: duplicate output id '1'"),
        (lambda g, c: g.write_bytes(b'{"id": 1, "system": "s", "text": "\xff"}\n'), "gens.jsonl:1: not valid utf-8"),
        (lambda g, c: g.unlink(), "gens.jsonl: file not found"),
        (lambda g, c: (c / "Carl").mkdir(), "artist folder 'Carl' has no verses"),
        (lambda g, c: [p.unlink() for p in c.rglob("*.txt")], "has no verses"),
    ],
)
def test_bad_input_exit_2_one_line_no_output(corpus_dir: Path, gens: Path, tmp_path: Path, setup, message) -> None:
    setup(gens, corpus_dir)
    out = tmp_path / "out"
    res = run("evaluate", "--corpus", str(corpus_dir), "--generations", str(gens), "--out", str(out))
    assert res.returncode == 2
    assert message in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_unknown_measure_and_bad_param(corpus_dir: Path, gens: Path, tmp_path: Path) -> None:
    res = run("evaluate", "--corpus", str(corpus_dir), "--generations", str(gens), "--out", str(tmp_path / "o"),
              "--measures", "nope")
    assert res.returncode == 2 and "unknown measure 'nope'" in res.stderr
    res = run("evaluate", "--corpus", str(corpus_dir), "--generations", str(gens), "--out", str(tmp_path / "o"),
              "--measures", "length", "--param", "length.colour=red")
    assert res.returncode == 2 and "bad parameters for measure 'length'" in res.stderr
    res = run("evaluate", "--generations", str(gens), "--out", str(tmp_path / "o"), "--measures", "verse_copy")
    assert res.returncode == 2 and "needs a corpus" in res.stderr


def test_corpus_stats_and_clean(corpus_dir: Path, tmp_path: Path) -> None:
    res = run("corpus", "stats", str(corpus_dir), "--csv", str(tmp_path / "s.csv"))
    assert res.returncode == 0, res.stderr
    stats = pd.read_csv(tmp_path / "s.csv")
    assert list(stats.artist) == ["Ann", "Bob", "(all)"] and list(stats.verses) == [2, 2, 4]
    res = run("corpus", "clean", str(corpus_dir), "--out", str(tmp_path / "c.jsonl"), "--dropped",
              str(tmp_path / "d.csv"))
    assert res.returncode == 0, res.stderr
    assert "4 verses in, 2 kept" in res.stdout
    dropped = pd.read_csv(tmp_path / "d.csv")
    assert set(dropped.reason) == {"shorter than 20 tokens"} and len(dropped) == 2


def test_demo_runs(tmp_path: Path) -> None:
    res = run("demo", "--out", str(tmp_path / "demo"))
    assert res.returncode == 0, res.stderr
    html = (tmp_path / "demo" / "report.html").read_text()
    assert "<svg" in html and "Per-system summary" in html and "Dataset" in html
    import re

    # self-contained: nothing is fetched (no external src/href, no stylesheet links, no scripts)
    assert not re.search(r'(?:src|href)\s*=\s*["\'](?:https?:)?//', html)
    assert "<link" not in html and "<script" not in html
    gens = [json.loads(x) for x in (tmp_path / "demo" / "generations.jsonl").read_text().splitlines()]
    assert {g["system"] for g in gens} >= {"line-shuffle", "verbatim"}


def test_output_folder_is_never_clobbered(corpus_dir: Path, gens: Path, tmp_path: Path) -> None:
    args = ["evaluate", "--corpus", str(corpus_dir), "--generations", str(gens), "--measures", "length"]
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    res = run(*args, "--out", str(precious))
    assert res.returncode == 2 and "already holds files that creval did not write" in res.stderr
    assert (precious / "thesis.tex").read_text() == "years of work"
    afile = tmp_path / "afile"
    afile.write_text("x")
    res = run(*args, "--out", str(afile))
    assert res.returncode == 2 and "is not a folder" in res.stderr and afile.read_text() == "x"
    # a folder creval wrote itself is replaced on a re-run, and an empty folder is fine
    out = tmp_path / "out"
    assert run(*args, "--out", str(out)).returncode == 0
    (out / "results.csv").write_text("stale")
    assert run(*args, "--out", str(out)).returncode == 0
    assert (out / "results.csv").read_text().startswith("system,")
    (tmp_path / "empty").mkdir()
    assert run(*args, "--out", str(tmp_path / "empty")).returncode == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_bad_option_values_are_one_clear_error(corpus_dir: Path, gens: Path, tmp_path: Path) -> None:
    res = run("evaluate", "--corpus", str(corpus_dir), "--generations", str(gens), "--out", str(tmp_path / "o"),
              "--measures", "length", "--param", "length.tokenizer=bogus")
    assert res.returncode == 2 and "bad parameters for measure 'length': unknown tokenizer 'bogus'" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "o").exists()
    res = run("corpus", "clean", str(corpus_dir), "--out", str(tmp_path / "c.jsonl"), "--min-tokens", "-5")
    assert res.returncode == 2 and "--min-tokens" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "c.jsonl").exists()
    res = run("disfluency", str(gens), "--strategy", "correct", "--min-run", "0", "--out", str(tmp_path / "d.jsonl"))
    assert res.returncode == 2 and "--min-run" in res.stderr and "Traceback" not in res.stderr


def test_generations_encoding_option(corpus_dir: Path, tmp_path: Path) -> None:
    gens = tmp_path / "latin.jsonl"
    gens.write_bytes('{"id": "1", "system": "s", "text": "caf\u00e9 au lait"}\n'.encode("latin-1"))
    args = ["evaluate", "--corpus", str(corpus_dir), "--generations", str(gens), "--measures", "length"]
    res = run(*args, "--out", str(tmp_path / "o1"))
    assert res.returncode == 2 and "latin.jsonl:1: not valid utf-8" in res.stderr
    res = run(*args, "--out", str(tmp_path / "o2"), "--encoding", "latin-1")
    assert res.returncode == 0, res.stderr


def test_clean_chinese_with_character_tokens(shared_data: Path, tmp_path: Path) -> None:
    tang = shared_data / "chinese-poetry" / "tang300.json"
    res = run("corpus", "clean", str(tang), "--out", str(tmp_path / "t.jsonl"), "--tokenizer", "char")
    assert res.returncode == 0, res.stderr
    assert "366 verses in, 366 kept" in res.stdout
