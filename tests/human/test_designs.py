"""Items validation, style-matching rotation, Williams squares, page assignment, answer validation."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

from creval.errors import InputError
from creval.human.designs import (
    AnswerError,
    assign_pages,
    build_tasks,
    load_items,
    parse_answer,
    style_pages,
    validate_items,
    williams_square,
)
from tests.human._support import ARTISTS, example_rows


@pytest.mark.parametrize("stype", ["challenge_response", "fluency_coherence", "post_editing", "side_by_side",
                                   "style_matching"])
def test_examples_validate(stype):
    rows = validate_items(stype, example_rows(stype, 4))
    assert rows


@pytest.mark.parametrize("stype,row,msg", [
    ("challenge_response", {"id": "a", "system": "s", "challenge": "c"}, "missing field"),
    ("challenge_response", {"id": "a", "system": "s", "challenge": "c", "response": "r", "xtra": 1},
     "unknown field"),
    ("challenge_response", {"id": "a", "system": "s", "challenge": "c", "response": ""}, "'response' is empty"),
    ("fluency_coherence", {"id": "a", "system": "s", "text": "\n\n"}, "'text' is empty"),
    ("fluency_coherence", {"id": "a", "system": "s", "lines": ["", " "]}, "no non-blank lines"),
    ("fluency_coherence", {"id": "a", "system": "s", "lines": [1, 2]}, "list of strings"),
    ("side_by_side", {"id": "a", "context": "c", "outputs": [{"system": "s", "text": "t"}]}, "at least two"),
    ("side_by_side", {"id": "a", "context": "c", "outputs": [{"system": "s", "text": "t"},
                                                             {"system": "s", "text": "u"}]}, "distinct systems"),
    ("side_by_side", {"id": "a", "outputs": [{"system": "s", "text": "t"}, {"system": "u", "text": "u"}]},
     "'context' or 'image'"),
    ("post_editing", {"id": "a", "system": "s", "kind": "video", "text": "t"}, "'kind' must be"),
    ("post_editing", {"id": "a", "system": "s", "kind": "music"}, "'notation'"),
    ("style_matching", {"id": "a", "role": "judge", "artist": "x", "text": "t"}, "'role' must be"),
])
def test_bad_items(stype, row, msg):
    with pytest.raises(InputError, match=msg) as exc:
        validate_items(stype, [row], file="items.jsonl")
    assert exc.value.file == "items.jsonl" and exc.value.line == 1


def test_items_file_errors_name_the_line(tmp_path):
    p = tmp_path / "items.jsonl"
    good = json.dumps(example_rows("challenge_response", 1)[0])
    p.write_text(good + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON") as exc:
        load_items("challenge_response", p)
    assert exc.value.line == 3
    p.write_text(good + "\n" + good + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="duplicate id 'r0' \\(first on line 1\\)") as exc:
        load_items("challenge_response", p)
    assert exc.value.line == 2


def test_style_rotation_meets_every_other_artist_with_balanced_positions():
    rows = validate_items("style_matching", example_rows("style_matching", 13))
    evaluated = [r for r in rows if r["role"] == "evaluated"]
    pool: dict[str, list[dict]] = {}
    for r in rows:
        if r["role"] == "candidate":
            pool.setdefault(r["artist"], []).append(r)
    pages = style_pages(evaluated, pool, seed=3)
    assert len(pages) == 13 * 4
    positions = Counter()
    for v in evaluated:
        mine = [p for p in pages if p["verse"]["id"] == v["id"]]
        assert len(mine) == 4
        others = [c["artist"] for p in mine for i, c in enumerate(p["candidates"]) if i != p["target_position"]]
        assert sorted(others) == sorted(a for a in ARTISTS if a != v["artist"])  # 12 others, each once
        assert sorted(p["target_position"] for p in mine) == [0, 1, 2, 3]  # every position once per verse
        for p in mine:
            true = p["candidates"][p["target_position"]]
            assert true["artist"] == v["artist"] and true["text"] != v["text"]
            positions[p["target_position"]] += 1
    assert set(positions.values()) == {13}


def test_style_rotation_with_fewer_artists_fills_the_last_page():
    rows = [{"id": "g", "role": "evaluated", "artist": "A", "text": "gen", "system": "s"}]
    rows += [{"id": f"c{a}{j}", "role": "candidate", "artist": a, "text": f"{a}{j}"} for a in "ABCDEF"
             for j in range(2)]
    tasks = build_tasks("style_matching", validate_items("style_matching", rows))
    assert len(tasks) == 2  # 5 others -> 2 pages of 3
    for t in tasks:
        arts = t.hidden["candidate_artists"]
        assert len(set(arts)) == 4 and arts[t.hidden["target_position"]] == "A"


def test_style_pool_errors():
    rows = [{"id": "g", "role": "evaluated", "artist": "A", "text": "gen", "system": "s"}]
    rows += [{"id": f"c{a}", "role": "candidate", "artist": a, "text": a} for a in "BCD"]
    with pytest.raises(InputError, match="at least 4 artists"):
        validate_items("style_matching", rows)
    rows.append({"id": "cE", "role": "candidate", "artist": "E", "text": "E"})
    with pytest.raises(InputError, match="no candidate verse of its artist"):
        validate_items("style_matching", rows)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_williams_square_is_balanced(n):
    sq = williams_square(n)
    assert len(sq) == (n if n % 2 == 0 else 2 * n)
    for row in sq:
        assert sorted(row) == list(range(n))
    for pos in range(n):  # each treatment equally often in each position
        assert len(set(Counter(row[pos] for row in sq).values())) == 1
    follows = Counter((row[i], row[i + 1]) for row in sq for i in range(n - 1))
    assert len(follows) == n * (n - 1) and len(set(follows.values())) == 1  # carry-over balance


def test_assign_pages_pairs_meet_equally_often():
    names = [f"r{i}" for i in range(5)]
    pages = assign_pages(20, names, k=2, seed=1)  # C(5,2) = 10 blocks, two full cycles
    pairs = Counter(frozenset(p) for who in pages.values() for p in itertools.combinations(who, 2))
    assert len(pairs) == 10 and set(pairs.values()) == {2}
    assert set(Counter(n for who in pages.values() for n in who).values()) == {8}
    assert all(len(w) == 3 for w in assign_pages(4, names[:3], k=3).values())


def test_side_by_side_order_follows_williams_and_hides_systems():
    rows = validate_items("side_by_side", example_rows("side_by_side", 6))
    tasks = build_tasks("side_by_side", rows, seed=2)
    firsts = Counter(t.hidden["systems"][0] for t in tasks)
    assert set(firsts.values()) == {2}  # 3 systems, 6 pages = one full odd Williams design (2n rows)
    assert len({tuple(t.hidden["systems"]) for t in tasks}) == 6
    for t in tasks:
        assert "secret-sys" not in json.dumps(t.display)


def test_parse_answer_refuses_out_of_range():
    disp = {"lines": ["a", "b"]}
    assert parse_answer("fluency_coherence", disp, {"fluency_0": "2", "fluency_1": "0", "coherence_1": "1"}) == \
        {"fluency": [2, 0], "coherence": [None, 1]}
    with pytest.raises(AnswerError, match="missing"):
        parse_answer("fluency_coherence", disp, {"fluency_0": "2"})
    with pytest.raises(AnswerError, match="not one of"):
        parse_answer("side_by_side", {"outputs": ["a", "b"]}, {"rating_0": "6", "rating_1": "1"})
    with pytest.raises(AnswerError, match="not one of"):
        parse_answer("style_matching", {"candidates": ["a"] * 4}, {"choice": "4"})
    with pytest.raises(AnswerError, match="not a number"):
        parse_answer("challenge_response", {}, {"fluency": "x", "rhyming": "1"})
    with pytest.raises(AnswerError, match="empty"):
        parse_answer("post_editing", {}, {"edited": "  \n"})
