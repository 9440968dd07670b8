"""The `creval study` commands end to end (SQLite), including a bad study file (exit 2, one line)."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from creval.cli import main
from creval.human.store import Store


@pytest.mark.parametrize("stype", ["challenge_response", "fluency_coherence", "style_matching", "side_by_side",
                                   "post_editing"])
def test_example_create_status_export_results(tmp_path, stype):
    db = f"sqlite:///{tmp_path / 's.db'}"
    r = CliRunner().invoke(main, ["study", "example", "--out", str(tmp_path / "ex"), "--type", stype])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["study", "create", str(tmp_path / "ex" / "study.yaml"), "--db", db])
    assert r.exit_code == 0, r.output
    assert "Admin token" in r.output
    name = f"example-{stype.replace('_', '-')}"
    with open(tmp_path / "ex" / f"{name}-invites.csv", encoding="utf-8") as fh:
        invites = list(csv.DictReader(fh))
    assert len(invites) == 3 and all("/join/" in row["link"] for row in invites)
    # answer everything through the store, as the web app would
    from creval.human.designs import parse_answer

    store = Store(db)
    forms = {"challenge_response": {"fluency": "2", "rhyming": "1"}, "style_matching": {"choice": "0"},
             "post_editing": {"edited": "a fixed line"}}
    for i, row in enumerate(invites):
        a = store.annotator_by_token(row["link"].rsplit("/", 1)[1])
        while (asg := store.claim(a["id"])) is not None:
            d = asg["display"]
            form = dict(forms.get(stype, {}))
            if stype == "fluency_coherence":
                form = {f"fluency_{j}": str((i + j) % 3) for j in range(len(d["lines"]))}
                form.update({f"coherence_{j}": str(j % 3) for j in range(1, len(d["lines"]))})
            if stype == "side_by_side":
                form = {f"rating_{j}": str(1 + (i + j) % 5) for j in range(len(d["outputs"]))}
            assert store.submit(a["id"], asg["id"], parse_answer(stype, d, form), form) == "accepted"
    store.close()
    r = CliRunner().invoke(main, ["study", "status", name, "--db", db])
    assert r.exit_code == 0 and "complete" in r.output
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["study", "export", name, "--db", db, "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / f"{name}_judgements.csv").exists() and (out / f"{name}_design.json").exists()
    assert json.loads((out / f"{name}_design.json").read_text())["k"] == 2
    r = CliRunner().invoke(main, ["study", "results", name, "--db", db, "--json", str(out / "res.json")])
    assert r.exit_code == 0, r.output
    res = json.loads((out / "res.json").read_text())
    assert res["responses"] > 0 and any(t["title"] == "Agreement" for t in res["tables"])


def test_bad_study_file_exits_2_with_one_line(tmp_path):
    (tmp_path / "study.yaml").write_text("name: x\ntype: rating\nitems: i.jsonl\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["study", "create", str(tmp_path / "study.yaml"), "--db",
                                  f"sqlite:///{tmp_path / 's.db'}"])
    assert r.exit_code == 2
    assert "study.yaml:2: field 'type'" in r.output and "Traceback" not in r.output
    (tmp_path / "study.yaml").write_text("name: x\ntype: post_editing\nitems: i.jsonl\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["study", "create", str(tmp_path / "study.yaml"), "--check"])
    assert r.exit_code == 2 and "items file not found" in r.output
    r = CliRunner().invoke(main, ["study", "status", "nope", "--db", f"sqlite:///{tmp_path / 's.db'}"])
    assert r.exit_code == 2 and "no study 'nope'" in r.output
