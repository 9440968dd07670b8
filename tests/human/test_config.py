"""The study file: every bad field is refused with the field, the reason and its line."""

from __future__ import annotations

import pytest

from creval.errors import InputError
from creval.human.config import load_study, parse_study

GOOD = """\
name: demo
type: challenge_response
items: items.jsonl
k: 2
annotators: [ann1, ann2]
guidelines:
  text: Rate it.
  examples:
    - {text: "a line", label: good}
"""


def write(tmp_path, text):
    p = tmp_path / "study.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_good_file(tmp_path):
    cfg = load_study(write(tmp_path, GOOD))
    assert cfg.k_effective == 2 and cfg.annotator_names == ["ann1", "ann2"]
    assert parse_study({"name": "x", "type": "post_editing", "items": "i"}).k_effective == 1
    assert parse_study({"name": "x", "type": "fluency_coherence", "items": "i", "annotators": 12}) \
        .annotator_names[:2] == ["a01", "a02"]


@pytest.mark.parametrize("old,new,field,line", [
    ("type: challenge_response", "type: chalenge", "type", 2),
    ("k: 2", "k: 0", "k", 4),
    ("k: 2", "k: two", "k", 4),
    ("name: demo", "name: has space", "name", 1),
    ("annotators: [ann1, ann2]", "annotators: [ann1, ann1]", "annotators", 5),
    ("annotators: [ann1, ann2]", "annotators: -3", "annotators", 5),
    ("    - {text: \"a line\", label: good}", "    - {txt: \"a line\"}", "guidelines.examples.0", 9),
    ("  text: Rate it.", "  text: Rate it.\n  examples_condition: sometimes", "guidelines.examples_condition", 8),
    ("k: 2", "k: 2\nlease_minuts: 5", "lease_minuts", 5),
])
def test_bad_fields_name_field_reason_and_line(tmp_path, old, new, field, line):
    path = write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(InputError) as exc:
        load_study(path)
    assert f"field '{field}" in exc.value.problem
    assert exc.value.file == str(path)
    assert exc.value.line == line


def test_missing_fields_and_bad_yaml(tmp_path):
    with pytest.raises(InputError, match="field 'items': required field is missing"):
        load_study(write(tmp_path, "name: x\ntype: post_editing\n"))
    with pytest.raises(InputError, match="not valid YAML") as exc:
        load_study(write(tmp_path, "name: [x\n"))
    assert exc.value.line is not None
    with pytest.raises(InputError, match="must be a YAML mapping"):
        load_study(write(tmp_path, "- a\n- b\n"))
    with pytest.raises(InputError, match="not found"):
        load_study(tmp_path / "nope.yaml")
