"""Lexical diversity: kyle mode equals Kristopher Kyle's ``lexical_diversity`` 0.1.1, edge cases included;
creval mode gives NaN (with a reason) where a value is undefined."""

from __future__ import annotations

import importlib.util
import math
import os
import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creval.corpus.model import Output
from creval.metrics import lexical as L
from creval.metrics.base import measure_registry


def import_kyle():
    """His module calls ``pkg_resources.resource_filename`` at import; ``pkg_resources`` is gone from
    setuptools >= 81, so a one-function stand-in resolving his packaged data file is installed when missing."""
    if "pkg_resources" not in sys.modules:
        try:
            import pkg_resources  # noqa: F401
        except ImportError:
            shim = types.ModuleType("pkg_resources")

            def resource_filename(package: str, name: str) -> str:
                spec = importlib.util.find_spec(package)
                return os.path.join(os.path.dirname(spec.origin), name)

            shim.resource_filename = resource_filename
            sys.modules["pkg_resources"] = shim
    from lexical_diversity import lex_div

    return lex_div


ld = import_kyle()

PAIRS = [
    ("ttr", "ttr"),
    ("root_ttr", "root_ttr"),
    ("log_ttr", "log_ttr"),
    ("maas", "maas_ttr"),
    ("msttr", "msttr"),
    ("mattr", "mattr"),
    ("hdd", "hdd"),
    ("mtld", "mtld"),
    ("mtld_ma_bid", "mtld_ma_bid"),
    ("mtld_ma_wrap", "mtld_ma_wrap"),
]


def kyle_value(func: str, tokens: list[str]) -> float:
    try:
        return getattr(ld, func)(list(tokens))
    except ValueError:  # log10(0) on an empty text
        return float("nan")


def same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    # HD-D sums over Kyle's set() order (hash-randomised), so allow the last bits to differ
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


@pytest.fixture(scope="module")
def sonnet_tokens(shared_data) -> list[str]:
    text = (shared_data / "deepspeare" / "sonnet_valid.txt").read_text(encoding="utf-8")
    return [w for w in text.replace("<eos>", " ").split() if any(c.isalnum() for c in w)]


EDGE = {
    "empty": [],
    "one": ["a"],
    "two-same": ["a", "a"],
    "ten-unique": list("abcdefghij"),
    "all-unique-80": [f"w{i}" for i in range(80)],
    "one-type-60": ["x"] * 60,
}


@pytest.mark.parametrize("ours,his", PAIRS)
@pytest.mark.parametrize("case", sorted(EDGE))
def test_kyle_mode_edge_cases(ours, his, case):
    tokens = EDGE[case]
    assert same(getattr(L, ours)(tokens, mode="kyle"), kyle_value(his, tokens))


@pytest.mark.parametrize("ours,his", PAIRS)
@pytest.mark.parametrize("length", [9, 41, 42, 50, 51, 99, 100, 101, 250])
def test_kyle_mode_real_text(ours, his, length, sonnet_tokens):
    tokens = sonnet_tokens[500 : 500 + length]
    assert same(getattr(L, ours)(tokens, mode="kyle"), kyle_value(his, tokens))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=30), max_size=130))
def test_kyle_mode_random_texts(ids):
    tokens = [str(i) for i in ids]
    for ours, his in PAIRS:
        assert same(getattr(L, ours)(tokens, mode="kyle"), kyle_value(his, tokens)), ours


def test_short_windows_match_kyle(sonnet_tokens):
    tokens = sonnet_tokens[:140]
    assert same(L.mattr(tokens, window=25, mode="kyle"), ld.mattr(tokens, window_length=25))
    assert same(L.msttr(tokens, segment=25, mode="kyle"), ld.msttr(tokens, window_length=25))
    assert same(L.mtld(tokens, min_length=5, mode="kyle"), ld.mtld(tokens, min=5))


def test_worked_examples():
    # TTR 3/4, root 3/2, log10(3)/log10(4); Maas (log 4 - log 3) / log(4)^2
    toks = ["a", "b", "a", "c"]
    assert L.ttr(toks) == 0.75
    assert L.root_ttr(toks) == 1.5
    assert L.log_ttr(toks) == pytest.approx(math.log(3) / math.log(4))
    assert L.maas(toks) == pytest.approx((math.log10(4) - math.log10(3)) / math.log10(4) ** 2)
    # HD-D of 42 draws from a 42-token text is its TTR
    text = [str(i % 21) for i in range(42)]
    assert L.hdd(text) == pytest.approx(21 / 42)
    # MATTR window 2 over a b a b: every window has 2 types -> 1.0; over a a b: windows aa, ab -> 0.75
    assert L.mattr(list("abab"), window=2) == 1.0
    assert L.mattr(list("aab"), window=2) == 0.75


def test_creval_mode_undefined_is_nan():
    assert math.isnan(L.ttr([]))
    assert math.isnan(L.log_ttr(["a"]))
    assert math.isnan(L.maas(["a"]))
    assert math.isnan(L.hdd(["a"] * 41))
    assert not math.isnan(L.hdd(["a"] * 42))
    unique = [f"w{i}" for i in range(200)]
    assert math.isnan(L.mtld(unique))
    assert math.isnan(L.mtld_ma_bid(unique))
    assert L.maas(unique) == 0.0  # defined: all-unique text has a² = 0
    assert L.mtld_ma_wrap(unique) > 0  # wrap-around closes factors in the repeated text
    assert math.isnan(L.mtld_ma_bid(["a"] * 9))  # no run reaches 10 tokens
    assert L.mtld_ma_bid(["a"] * 10) == 10.0


def test_big_text_is_defined(sonnet_tokens):
    tokens = (sonnet_tokens * 4)[:101_000]
    vals = L.lexical_diversity(tokens)
    assert all(np.isfinite(v) for v in vals.values())


def test_bad_parameters():
    with pytest.raises(ValueError):
        L.ttr(["a"], mode="nope")
    with pytest.raises(ValueError):
        L.mattr(["a"], window=0)


def test_measure_registered_and_notes():
    cls = measure_registry()["lexical_diversity"]
    measure = cls()
    outs = [
        Output(id="e", system="s", text=""),
        Output(id="p", system="s", text="?! ... ,"),
        Output(id="z", system="s", text="床前明月光，疑是地上霜。举头望明月，低头思故乡。"),
        Output(id="m", system="s", text="the moon 明月 the moon rises " * 20),
    ]
    res = measure.score(outs)
    assert set(res.values) == set(L.REPORTED)
    assert np.isnan(res.values["ttr"][0]) and np.isnan(res.values["ttr"][1])
    assert any("'e'" in n and "empty" in n for n in res.notes)
    # character tokens for Chinese under the default "auto" tokenizer: 20 tokens, 14 types (明 月 twice, …)
    assert res.values["ttr"][2] == pytest.approx(len(set("床前明月光疑是地上霜举头望明月低头思故乡")) / 20)
    assert np.isfinite(res.values["mtld"][3])
    sig = str(res.signatures["mattr"])
    assert "window:50" in sig and "tok:auto" in sig and "mode:creval" in sig
