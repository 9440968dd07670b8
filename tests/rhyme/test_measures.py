"""The rhyme measures in the evaluate pipeline, and the report section."""

from __future__ import annotations

import math

import numpy as np
import pytest

from creval.api import evaluate_full
from creval.corpus.model import Output
from creval.errors import InputError
from creval.metrics.base import get_measure
from creval.report.registry import ReportContext
from creval.rhyme.density import rhyme_density
from creval.rhyme.factor import rhyme_factor
from creval.rhyme.report_section import rhyme_section

OUTPUTS = [
    Output("a1", "sysA", "I walk the dog\ndown by the bog\nmy money is funny"),
    Output("a2", "sysA", ""),
    Output("b1", "sysB", "the master was faster\nthan a disaster"),
    Output("b2", "sysB", "🔥🔥🔥"),
]


def test_density_measure_values_and_notes():
    res = get_measure("rhyme_density")().score(OUTPUTS)
    assert set(res.values) == {"rhyme_density", "rhyme_density_weighted", "end_rhymes_per_line",
                               "multisyllable_share"}  # fmt: skip
    assert set(res.signatures) == set(res.values)
    for i, out in enumerate(OUTPUTS):
        expected = rhyme_density(out.text).values()
        for name, value in expected.items():
            got = res.values[name][i]
            assert (math.isnan(got) and math.isnan(value)) or got == value
    assert np.isnan(res.values["rhyme_density"][[1, 3]]).all()
    assert any("'a2'" in n for n in res.notes) and any("'b2'" in n for n in res.notes)
    assert set(res.artifacts["examples"]) == {"sysA", "sysB"}


def test_factor_measure():
    res = get_measure("rhyme_factor")().score(OUTPUTS)
    assert res.values["rhyme_factor"][2] == rhyme_factor(OUTPUTS[2].text).rhyme_factor
    assert "mode:cmudict" in str(res.signatures["rhyme_factor"])


def test_bad_parameters():
    with pytest.raises(InputError):
        get_measure("rhyme_density")(weighting="nope")
    with pytest.raises(InputError):
        get_measure("rhyme_factor")(mode="ipa")


def test_pipeline_and_report_section():
    ev = evaluate_full(None, OUTPUTS, ["rhyme_density", "rhyme_factor", "end_rhyme"], report=False)
    measures = set(ev.results["measure"])
    assert {"rhyme_density", "rhyme_density_weighted", "end_rhymes_per_line", "multisyllable_share",
            "rhyme_factor"} <= measures  # fmt: skip
    ctx = ReportContext(
        results=ev.results, outputs=ev.outputs, artifacts=ev.artifacts, signatures=ev.signatures
    )
    html = rhyme_section(ctx)
    assert html is not None and "sysA" in html and "<b style=" in html and "master" in html
    assert "strongest rhyme type" in html and "end_rhyme_rate" in html
    empty = ReportContext(results=ev.results[ev.results["measure"] == "nothing"])
    assert rhyme_section(empty) is None


def test_end_rhyme_measure():
    outs = [
        Output("e1", "s", "I walk the dog\ndown by the bog\nunder a tree\nnext to a sea"),
        Output("e2", "s", "I walk the dog\nthen I beg"),
        Output("e3", "s", "one line only"),
    ]
    res = get_measure("end_rhyme")().score(outs)
    # dog/bog perfect, bog/tree none, tree/sea perfect -> 2/3; dog/beg is a consonant rhyme -> 0
    assert res.values["end_rhyme_rate"][:2].tolist() == [pytest.approx(2 / 3), 0.0]
    assert res.values["perfect_end_rhyme_rate"][0] == pytest.approx(2 / 3)
    assert math.isnan(res.values["end_rhyme_rate"][2]) and res.notes
    assert res.artifacts["type_counts"]["s"] == {"perfect": 2, "none": 1, "consonant": 1}
