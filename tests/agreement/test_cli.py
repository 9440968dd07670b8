"""`creval agreement MATRIX.csv` and the matrix reader behind it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from creval.agreement import fleiss_kappa, icc, krippendorff_alpha
from creval.agreement.matrix import agreement_table, read_matrix
from creval.cli import main
from creval.errors import InputError


def _write(tmp_path, text, name="m.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_read_matrix_numeric_and_labels(tmp_path):
    units, raters, arr = read_matrix(_write(tmp_path, "unit,a1,a2\nu1,2,1\nu2,,0\n"))
    assert units == ["u1", "u2"] and raters == ["a1", "a2"]
    assert arr.dtype.kind == "f" and np.isnan(arr[1, 0])
    _, _, labels = read_matrix(_write(tmp_path, "unit,a,b\nx,good,\ny,bad,good\n", "l.csv"))
    assert labels.dtype == object and labels[0, 1] is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("unit\n", "header"),
        ("unit,a\nu1,1,2\n", ":2: 3 cells for 2 columns"),
        ("unit,a\nu,inf\n", "infinite"),
    ],
)
def test_read_matrix_bad_files(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_matrix(_write(tmp_path, text))
    with pytest.raises(InputError, match="file not found"):
        read_matrix(tmp_path / "absent.csv")


def test_agreement_table_matches_the_functions():
    arr = np.array([[2, 2, 1], [0, 0, 0], [1, 2, np.nan], [2, 2, 2], [0, 1, 0]], dtype=float)
    rows = {r.statistic: r for r in agreement_table(arr, collapse={2.0: "ok", 1.0: "ok", 0.0: "bad"})}
    assert rows["fleiss_kappa"].value == pytest.approx(fleiss_kappa(arr).value)
    assert rows["krippendorff_alpha_ordinal"].value == pytest.approx(
        krippendorff_alpha(arr.T, "ordinal").value
    )
    assert rows["icc ICC(2,1) = ICC(A,1)"].value == pytest.approx(icc(arr)["ICC(2,1)"].value)
    binary = np.where(np.isnan(arr), np.nan, (arr > 0).astype(float))
    assert rows["fleiss_kappa_collapsed"].value == pytest.approx(fleiss_kappa(binary).value)


def test_cli_prints_every_statistic_and_writes_json(tmp_path):
    path = _write(tmp_path, "unit,a1,a2,a3\nu1,2,2,1\nu2,0,0,0\nu3,1,2,\nu4,2,2,2\nu5,0,1,0\n")
    out = tmp_path / "res.json"
    result = CliRunner().invoke(
        main, ["agreement", str(path), "--collapse", "acceptable", "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "5 units x 3 raters" in result.output
    assert "Fleiss kappa" in result.output and "ICC(2,1) = ICC(A,1)" in result.output
    data = json.loads(out.read_text())
    assert {d["statistic"] for d in data} >= {
        "fleiss_kappa",
        "fleiss_kappa_collapsed",
        "krippendorff_alpha_interval",
    }


def test_cli_undefined_and_errors(tmp_path):
    same = _write(tmp_path, "unit,a,b\nx,good,good\ny,good,good\n")
    result = CliRunner().invoke(main, ["agreement", str(same)])
    assert result.exit_code == 0
    assert "undefined (every rating is 'good'" in result.output
    assert "1.000" not in result.output
    missing = CliRunner().invoke(main, ["agreement", str(tmp_path / "none.csv")])
    assert missing.exit_code == 2 and "file not found" in missing.output
    bad = CliRunner().invoke(main, ["agreement", str(same), "--collapse", "best"])
    assert bad.exit_code == 2 and "--collapse" in bad.output
