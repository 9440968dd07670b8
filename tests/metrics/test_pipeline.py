"""The measure registry and the evaluate pipeline, with a measure registered by the test itself."""

from __future__ import annotations

import numpy as np
import pytest

import creval
from creval.corpus.model import Corpus, Output, Verse
from creval.errors import InputError
from creval.metrics.base import (
    _REGISTRY,
    Measure,
    MeasureResult,
    Signature,
    measure_registry,
    register_measure,
)


@pytest.fixture()
def probe_measure():
    @register_measure
    class Probe(Measure):
        name = "zz_probe"
        needs_corpus = True
        default = False

        def __init__(self, factor: float = 1.0) -> None:
            super().__init__(factor=factor)
            self.fitted = 0

        def fit(self, corpus):
            self.n_verses = len(corpus)
            return self

        def score(self, outputs):
            vals = np.array([len(o.text) * self.params["factor"] + self.n_verses for o in outputs], dtype=float)
            rows = [{"system": "s", "output_id": None, "input_id": "in", "sample": None, "checkpoint": None,
                     "artist": None, "measure": "zz_set", "value": 42.0}]
            return MeasureResult(
                values={"zz_len": vals},
                signatures={"zz_len": Signature("zz_len", params=self.params), "zz_set": Signature("zz_set")},
                rows=rows, artifacts={"hello": 1}, notes=["a note"],
            )

    yield Probe
    _REGISTRY.pop("zz_probe", None)


def test_registry_and_evaluate(probe_measure) -> None:
    assert "zz_probe" in measure_registry() and "length" in measure_registry()
    corpus = Corpus([Verse("A", ("x",)), Verse("A", ("y",))])
    outs = [Output("1", "s", "abc", checkpoint=2), Output("2", "s", "ab", sample="best")]
    table = creval.evaluate(corpus, outs, ["zz_probe"], params={"zz_probe": {"factor": 10}})
    assert list(table.columns) == list(creval.TIDY_COLUMNS)
    per = table[table.measure == "zz_len"].set_index("output_id")["value"]
    assert per["1"] == 32 and per["2"] == 22
    assert table[table.measure == "zz_set"]["value"].item() == 42
    assert table.attrs["signatures"]["zz_len"] == "zz_len|factor:10|version:creval-0.1.0"
    assert table[table.output_id == "1"]["checkpoint"].iloc[0] == 2


def test_pipeline_refuses_user_mistakes(probe_measure) -> None:
    outs = [Output("1", "s", "abc")]
    with pytest.raises(InputError, match="needs a corpus"):
        creval.evaluate(None, outs, ["zz_probe"])
    with pytest.raises(InputError, match="unknown measure"):
        creval.evaluate(None, outs, ["nope"])
    with pytest.raises(InputError, match="duplicate output id"):
        creval.evaluate(None, outs * 2, ["length"])
    with pytest.raises(InputError, match="not run"):
        creval.evaluate(None, outs, ["length"], params={"verse_copy": {"x": 1}})


def test_default_measures_without_a_corpus_leave_out_corpus_measures() -> None:
    outs = [Output("1", "s", "the cat sat on the mat\nthe dog sat on the log"), Output("2", "t", "hello there")]
    ev = creval.evaluate_full(None, outs)
    measures = set(ev.results["measure"])
    assert "length_tokens" in measures and "verse_copy" not in measures
    assert any(n.startswith("no corpus given: left out the measures that need one") and "verse_copy" in n
               for n in ev.notes)
