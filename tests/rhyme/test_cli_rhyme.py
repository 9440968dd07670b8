"""``creval rhyme`` and ``creval rhyme analyze``."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from creval.cli import main


def test_pair_explains():
    res = CliRunner().invoke(main, ["rhyme", "I walk the dog", "he's a cog"])
    assert res.exit_code == 0, res.output
    assert "D AO1 G" in res.output and "perfect" in res.output and "yes" in res.output


def test_pair_normalised_and_numeral():
    res = CliRunner().invoke(main, ["rhyme", "just turned 21", "havin' fun"])
    assert res.exit_code == 0
    assert "numeral" in res.output and "twenty one" in res.output


def test_pair_no_rhyme():
    res = CliRunner().invoke(main, ["rhyme", "I walk the dog", "then I beg"])
    assert res.exit_code == 0 and "consonant" in res.output and "no" in res.output


def test_pair_without_words_is_an_input_error():
    res = CliRunner().invoke(main, ["rhyme", "!!!", "dog"])
    assert res.exit_code == 2 and "no word in the first line" in res.output


def test_analyze_text_file(tmp_path):
    f = tmp_path / "verses.txt"
    f.write_text("I walk the dog\ndown by the bog\n\nthe master was faster\nthan a disaster\n\n😀\n", "utf-8")
    res = CliRunner().invoke(main, ["rhyme", "analyze", str(f), "--no-scheme"])
    assert res.exit_code == 0, res.output
    assert "line 1" in res.output and "line 4" in res.output and "density" in res.output
    assert "undefined" in res.output  # the emoji verse


def test_analyze_generations(tmp_path):
    f = tmp_path / "gen.jsonl"
    f.write_text(json.dumps({"id": "x1", "system": "s", "text": "money\nhoney"}) + "\n", "utf-8")
    res = CliRunner().invoke(main, ["rhyme", "analyze", str(f), "--factor-mode", "espeak"])
    assert res.exit_code == 0, res.output
    assert "x1" in res.output and "density 1.000" in res.output


def test_analyze_missing_file():
    res = CliRunner().invoke(main, ["rhyme", "analyze", "/nonexistent/file.txt"])
    assert res.exit_code == 2 and "file not found" in res.output


def test_analyze_shows_scheme(tmp_path):
    f = tmp_path / "verses.txt"
    f.write_text("I walk the dog\ndown by the bog\nthe sun is bright\nand so is the light\n", "utf-8")
    res = CliRunner().invoke(main, ["rhyme", "analyze", str(f)])
    assert res.exit_code == 0, res.output
    assert re.search(r"scheme [A-Z]", res.output)
