"""Music through `creval evaluate` and the `creval music` commands."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from creval.api import evaluate_full
from creval.cli import main
from creval.corpus.model import Output
from creval.errors import InputError

GEN = ("jigs1.mid", "jigs2.mid", "jigs3.mid", "jigs4.mid", "jigs5.mid", "jigs6.mid")
REF = ("ashover1.mid", "ashover2.mid", "hpps1.mid", "hpps2.mid", "morris1.mid", "reelsa-c1.mid",
       "waltzes1.mid", "waltzes2.mid")


@pytest.fixture
def folders(tmp_path: Path, nottingham: Path) -> tuple[Path, Path]:
    gen = tmp_path / "gen"
    ref = tmp_path / "ref"
    gen.mkdir()
    ref.mkdir()
    for name in GEN:
        shutil.copy(nottingham / name, gen / name)
    for name in REF:
        shutil.copy(nottingham / name, ref / name)
    return gen, ref


def test_evaluate_with_music_outputs(folders, tmp_path: Path) -> None:
    gen, ref = folders
    rows = [{"id": f"o{i}", "system": "jigs", "music": f"gen/{name}", "input_id": f"in{i % 2}"}
            for i, name in enumerate(GEN)]
    rows.append({"id": "t", "system": "text-only", "text": "a line of lyrics"})
    path = tmp_path / "generations.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    ev = evaluate_full(None, path, ["music-features", "music-mgeval"],
                       params={"music-mgeval": {"corpus": str(ref), "num_bars": 4}}, out=tmp_path / "out")
    res = ev.results
    pc = res[res["measure"] == "music_pitch_count"].set_index("output_id")["value"]
    assert pc["o0"] > 3 and np.isnan(pc["t"])
    kl = res[res["measure"].str.startswith("mgeval_kl_")]
    assert set(kl["system"]) == {"jigs"} and len(kl) == 12
    assert kl["output_id"].isna().all()
    html = (tmp_path / "out" / "report.html").read_text("utf-8")
    assert "Symbolic music" in html and "pitch class transition matrix" in html
    sig = json.loads((tmp_path / "out" / "signatures.json").read_text("utf-8"))
    assert "mode:compat" in sig["mgeval_oa_pitch_range"]["string"]


def test_mgeval_without_corpus_leaves_a_note(folders) -> None:
    gen, _ = folders
    outs = [Output(id=n, system="s", text="", music=str(gen / n)) for n in GEN]
    ev = evaluate_full(None, outs, ["music-mgeval"])
    assert ev.results.empty
    assert any("music-mgeval.corpus" in n for n in ev.notes)


def test_constant_feature_reported_in_pipeline(folders, tmp_path: Path) -> None:
    gen, ref = folders
    same = tmp_path / "same"
    same.mkdir()
    for k in range(4):
        shutil.copy(gen / GEN[0], same / f"copy{k}.mid")
    outs = [Output(id=f"c{k}", system="copies", text="", music=str(same / f"copy{k}.mid")) for k in range(4)]
    ev = evaluate_full(None, outs, ["music-mgeval"], params={"music-mgeval": {"corpus": str(ref)}})
    table = pd.DataFrame(ev.artifacts["music-mgeval"]["systems"]["copies"]["table"])
    # identical pieces: every intra-set distance of the generated set is 0
    assert set(table["status"]) == {"constant"}
    assert table["kl_generated"].isna().all()
    assert any("constant" in n for n in ev.notes)


def test_music_her_measure(folders, tmp_path: Path, midi_writer) -> None:
    gen, _ = folders
    edited = midi_writer("edited.mid", [(0, 1, 60)])
    rows = [{"id": "a", "system": "s", "music": str(gen / GEN[0]), "music_edited": str(gen / GEN[0]),
             "input_id": "p1"},
            {"id": "b", "system": "s", "music": str(gen / GEN[1]), "music_edited": str(edited), "input_id": "p2"}]
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    ev = evaluate_full(None, path, ["music-her"], out=tmp_path / "o")
    res = ev.results
    her = res[res["measure"] == "music_her"].set_index("output_id")["value"]
    assert her["a"] == 0.0 and her["b"] > 1.0
    ms = res[res["measure"] == "music_ms_distance"].set_index("output_id")["value"]
    assert ms["a"] == 0.0 and ms["b"] > 1.0
    assert "HER by input piece" in (tmp_path / "o" / "report.html").read_text("utf-8")


def test_missing_music_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps({"id": "x", "system": "s", "music": "nope.mid"}) + "\n", "utf-8")
    with pytest.raises(InputError, match=r"g.jsonl:1: output 'x': music file 'nope.mid' not found"):
        evaluate_full(None, path, ["music-features"])
    with pytest.raises(InputError, match="unknown mode"):
        evaluate_full(None, path, ["music-mgeval"], params={"music-mgeval": {"mode": "fast"}})


def test_cli_compare_writes_report(folders, tmp_path: Path) -> None:
    gen, ref = folders
    out = tmp_path / "report"
    result = CliRunner().invoke(main, ["music", "compare", str(gen), str(ref), "--out", str(out),
                                       "--num-bars", "4", "--mode", "corrected"])
    assert result.exit_code == 0, result.output
    assert (out / "report.html").is_file() and (out / "results.csv").is_file()
    table = pd.read_csv(out / "mgeval.csv")
    assert len(table) == 12 and set(table["system"]) == {"gen"}
    assert table["oa"].between(0, 1.0001).all()
    assert "overlapping area" in result.output


def test_cli_features_and_her(folders, tmp_path: Path, midi_writer) -> None:
    gen, _ = folders
    csv = tmp_path / "f.csv"
    result = CliRunner().invoke(main, ["music", "features", str(gen), "--csv", str(csv)])
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(csv)
    assert len(frame) == len(GEN) and "pch_11" in frame.columns
    a = midi_writer("a.mid", [(0, 1, 60), (1, 1, 62), (4, 1, 64)])
    b = midi_writer("b.mid", [(0, 1, 60), (1, 1, 63), (4, 1, 64)])
    result = CliRunner().invoke(main, ["music", "her", str(a), str(b)])
    assert result.exit_code == 0, result.output
    assert "HER = 0.3333" in result.output and "S=1" in result.output
    assert "Mongeau–Sankoff distance = 0.9000" in result.output  # D4 -> D#4: a second, 0.9


def test_cli_bad_file_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mid"
    bad.write_bytes(b"\x00\x01garbage")
    result = CliRunner().invoke(main, ["music", "features", str(bad)])
    assert result.exit_code == 2
    assert "bad.mid: not a readable MIDI file" in result.output
    assert "Traceback" not in result.output
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    result = CliRunner().invoke(main, ["music", "compare", str(empty_dir), str(empty_dir), "--out",
                                       str(tmp_path / "o")])
    assert result.exit_code == 2 and "no music files" in result.output
    assert not (tmp_path / "o").exists()


def test_cli_evaluate_with_music_param(folders, tmp_path: Path) -> None:
    gen, ref = folders
    path = tmp_path / "gens.jsonl"
    path.write_text("".join(json.dumps({"id": n, "system": "jigs", "music": str(gen / n)}) + "\n" for n in GEN),
                    "utf-8")
    out = tmp_path / "res"
    result = CliRunner().invoke(main, ["evaluate", "--generations", str(path), "--out", str(out),
                                       "--measures", "music-features,music-mgeval",
                                       "--param", f"music-mgeval.corpus={ref}",
                                       "--param", "music-mgeval.features=pitch_range,avg_IOI",
                                       "--param", "music-mgeval.mode=corrected", "--no-report"])
    assert result.exit_code == 0, result.output
    res = pd.read_csv(out / "results.csv")
    assert set(res["measure"]) >= {"mgeval_kl_pitch_range", "mgeval_oa_avg_IOI", "music_ioi"}
    assert not any(m.startswith("mgeval_kl_note") for m in res["measure"])
    bad = CliRunner().invoke(main, ["evaluate", "--generations", str(path), "--out", str(tmp_path / "x"),
                                    "--measures", "music-mgeval", "--param", "music-mgeval.features=tempo"])
    assert bad.exit_code == 2 and "unknown feature(s) tempo" in bad.output
