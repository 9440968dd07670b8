"""The notes notation for post-editing music, and the music kind of the post-editing study in the web app."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.errors import InputError
from creval.music.edit import note_tokens
from creval.music.io import read_piece
from creval.music.notation import (
    notation_tokens,
    notation_track,
    parse_notes,
    parse_pitch,
    piece_to_notes,
    preview_svg,
)


def test_parse_notes_by_hand() -> None:
    assert parse_pitch("C4") == 60 and parse_pitch("F#3") == 54 and parse_pitch("Bb5") == 82
    assert parse_pitch("c-1") == 0 and parse_pitch("G9") == 127
    notes = parse_notes("C4:1 D4:0.5 E4 | F#4+A4:2 r:1 Bb3:1/3 C4")
    assert notes == [(0.0, 1.0, 60), (1.0, 0.5, 62), (1.5, 0.5, 64), (2.0, 2.0, 66), (2.0, 2.0, 69),
                     (5.0, 1 / 3, 58), (5 + 1 / 3, 1 / 3, 60)]
    for bad, message in (("H4", "not a pitch"), ("C4:0", "positive"), ("C4:x", "bad length"),
                         ("G#9", "outside the MIDI range")):
        with pytest.raises(InputError, match=message):
            parse_notes(bad)


def test_tokens_are_lenient_and_match_midi_tokens(nottingham: Path) -> None:
    assert notation_tokens("C4:1 X9 D4") == ["60:1", "?X9", "62:1"]
    piece = read_piece(nottingham / "hpps12.mid")
    text = piece_to_notes(piece)
    assert "|" in text
    assert notation_tokens(text) == note_tokens(piece.notes())  # round trip through the notes format
    track = notation_track(text)
    assert list(track.pitch) == list(piece.notes().pitch)


def test_abc_notation_tokens() -> None:
    abc = "X:1\nM:3/4\nL:1/8\nK:D\nA2 d2 f2|a4 f2|]\n"
    assert notation_tokens(abc) == ["69:1", "74:1", "78:1", "81:2", "78:1"]


def test_preview_svg_escapes_and_reports() -> None:
    svg = preview_svg("C4:1 E4:1 G4:2")
    assert svg.startswith("<svg") and svg.count("<rect") == 4  # background + 3 notes
    bad = preview_svg("C4 <script>alert(1)</script>")
    assert "<script>" not in bad and "Cannot preview" in bad
    assert "No notes" in preview_svg("r:4")


# ------------------------------------------------------------------------------------------- web app
def _csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_post_editing_music_in_the_web_app(tmp_path: Path) -> None:
    from creval.human.config import parse_study
    from creval.human.designs import build_tasks, validate_items
    from creval.human.store import Store
    from creval.human.web.app import create_app

    rows = [{"id": "m1", "system": "secret-sys", "kind": "music", "notation": "C4:1 D4:1 E4:1 F4:1",
             "format": "notes"}]
    cfg = parse_study({"name": "music-pe", "type": "post_editing", "items": "x.jsonl", "k": 1, "annotators": 1})
    store = Store(f"sqlite:///{tmp_path / 'study.db'}")
    try:
        created = store.create_study(cfg, build_tasks("post_editing", validate_items("post_editing", rows),
                                                      seed=cfg.seed))
        app = create_app(store=store)
        client = TestClient(app)
        page = client.get(f"/join/{created.invites['a1']}")
        page = client.post("/guidelines", data={"csrf": _csrf(page.text)})
        html = page.text
        assert 'data-testid="original-preview"' in html and "secret-sys" not in html
        assert html.count("<rect") >= 2 * 5  # original and edited previews, 4 notes each
        act = re.search(r'action="(/task/\d+)"', html).group(1)
        # save a draft: the preview shows the draft; a bad token shows a message, escaped
        page = client.post(f"{act}/draft", data={"csrf": _csrf(html), "edited": "C4:1 D4:1 <b>X9</b>"})
        assert "Cannot preview" in page.text and "<b>X9</b>" not in page.text
        page = client.post(f"{act}/draft", data={"csrf": _csrf(html), "edited": "C4:1 D4:1 G4:1 F4:1"})
        assert 'data-testid="edited-preview"' in page.text and "Cannot preview" not in page.text
        done = client.post(act, data={"csrf": _csrf(page.text), "edited": "C4:1 D4:1 G4:1 F4:1"})
        assert 'data-testid="done"' in done.text
        admin = TestClient(app, headers={"Authorization": f"Bearer {created.admin_token}"})
        exported = admin.get("/admin/music-pe/export/judgements.jsonl").text.splitlines()
        row = json.loads(exported[0])
        # one substituted note out of four note tokens (the word tokenizer would have split "C4:1")
        assert row["kind"] == "music" and row["value"] == pytest.approx(0.25)
        table = list(csv.DictReader(io.StringIO(admin.get("/admin/music-pe/export/judgements.csv").text)))
        assert table[0]["system"] == "secret-sys"
    finally:
        store.close()


def test_cli_items_feed_a_post_editing_study(tmp_path: Path, nottingham: Path) -> None:
    import shutil

    from click.testing import CliRunner

    from creval.cli import main
    from creval.human.designs import read_items, validate_items

    folder = tmp_path / "samples"
    folder.mkdir()
    for name in ("jigs1.mid", "jigs2.mid"):
        shutil.copy(nottingham / name, folder / name)
    out = tmp_path / "items.jsonl"
    result = CliRunner().invoke(main, ["music", "items", str(folder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [r for _, r in read_items(out)]
    assert [r["id"] for r in rows] == ["jigs1.mid", "jigs2.mid"] and rows[0]["system"] == "samples"
    validate_items("post_editing", rows)  # the study accepts them as they are
    assert notation_tokens(rows[0]["notation"]) == note_tokens(read_piece(folder / "jigs1.mid").notes())


def test_post_editing_music_upload(tmp_path: Path, midi_writer) -> None:
    from creval.human.config import parse_study
    from creval.human.designs import build_tasks, validate_items
    from creval.human.store import Store
    from creval.human.web.app import create_app

    rows = [{"id": f"m{i}", "system": "s", "kind": "music", "notation": "C4:1 D4:1 E4:1 F4:1"} for i in range(2)]
    cfg = parse_study({"name": "music-up", "type": "post_editing", "items": "x.jsonl", "k": 1, "annotators": 1})
    store = Store(f"sqlite:///{tmp_path / 'study.db'}")
    try:
        created = store.create_study(cfg, build_tasks("post_editing", validate_items("post_editing", rows),
                                                      seed=cfg.seed))
        app = create_app(store=store)
        client = TestClient(app)
        page = client.get(f"/join/{created.invites['a1']}")
        html = client.post("/guidelines", data={"csrf": _csrf(page.text)}).text
        assert 'enctype="multipart/form-data"' in html and 'data-testid="edited-file"' in html
        act = re.search(r'action="(/task/\d+)"', html).group(1)
        # a corrupt upload is refused with a message; nothing is saved
        bad = client.post(act, data={"csrf": _csrf(html), "edited": "C4:1"},
                          files={"edited_file": ("edit.mid", b"not midi", "audio/midi")})
        assert bad.status_code == 422 and "could not be read" in bad.text and "edit.mid" in bad.text
        assert not store.responses("music-up")
        # a MIDI upload replaces the text: C D E F with E raised to G -> one substitution in four
        edited = midi_writer("edit.mid", [(0, 1, 60), (1, 1, 62), (2, 1, 67), (3, 1, 65)])
        done = client.post(act, data={"csrf": _csrf(html), "edited": "ignored text"},
                           files={"edited_file": ("edit.mid", edited.read_bytes(), "audio/midi")})
        assert done.status_code == 200
        admin = TestClient(app, headers={"Authorization": f"Bearer {created.admin_token}"})
        row = json.loads(admin.get("/admin/music-up/export/judgements.jsonl").text.splitlines()[0])
        assert row["edited"] == "C4:1 D4:1 G4:1 F4:1" and row["value"] == pytest.approx(0.25)
    finally:
        store.close()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ABCDEFGabr#b+:|/0123456789.- \n<>&", max_size=60))
def test_any_annotator_text_gives_tokens_and_a_preview(text: str) -> None:
    tokens = notation_tokens(text)
    assert all(isinstance(t, str) for t in tokens)
    html = preview_svg(text)
    assert "<script" not in html and ("<svg" in html or "<p" in html)
    assert "<>" not in html and "&" not in html.replace("&#x27;", "").replace("&amp;", "").replace(
        "&lt;", "").replace("&gt;", "").replace("&quot;", "")
