"""Vectorised n-gram counting over many token sequences at once (shared by BLEU, ROUGE, distinct-n, self-BLEU).

Tokens are integer-encoded once; the n-gram starting at each position gets an exact, collision-free integer id
built order by order: ``id_n = rank(id_{n-1} * V + token)`` (``np.unique`` with ``return_inverse``). n-grams
never cross the end of a sequence. Counting per (sequence, n-gram) is then a sort of integer keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np


def encode(seqs: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray, int]:
    """Integer-encode token sequences: (flat token ids, lengths, vocabulary size)."""
    tokens = list(chain.from_iterable(seqs))
    lens = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
    if not tokens:
        return np.zeros(0, dtype=np.int64), lens, 0
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a core dependency
        vocab = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
        flat = np.fromiter(map(vocab.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        return flat, lens, len(vocab)
    arr = np.empty(len(tokens), dtype=object)
    arr[:] = tokens
    codes, uniques = pd.factorize(arr, sort=False)
    return codes.astype(np.int64, copy=False), lens, int(uniques.size)


@dataclass
class NgramTable:
    """n-gram occurrences of every sequence: for order ``n``, ``ids[n]`` (exact n-gram ids, ``0..G_n-1``) and
    ``seqs[n]`` (which sequence each occurrence belongs to), in text order; ``sizes[n] = G_n``."""

    lens: np.ndarray
    ids: dict[int, np.ndarray]
    seqs: dict[int, np.ndarray]
    sizes: dict[int, int]
    starts: dict[int, np.ndarray]


def ngram_table(seqs: Sequence[Sequence[str]], max_n: int) -> NgramTable:
    flat, lens, vocab = encode(seqs)
    return ngram_table_from_ids(flat, lens, vocab, max_n)


def ngram_table_from_ids(flat: np.ndarray, lens: np.ndarray, vocab: int, max_n: int) -> NgramTable:
    total = int(flat.size)
    seq = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
    offsets = np.cumsum(lens) - lens
    pos = np.arange(total, dtype=np.int64) - offsets[seq] if total else np.zeros(0, dtype=np.int64)
    remaining = lens[seq] - pos if total else np.zeros(0, dtype=np.int64)
    ids: dict[int, np.ndarray] = {1: flat}
    seq_of: dict[int, np.ndarray] = {1: seq}
    sizes: dict[int, int] = {1: max(vocab, 1)}
    starts: dict[int, np.ndarray] = {1: pos}
    layer = flat  # id of the n-gram starting at each position (valid where remaining >= n)
    base = max(vocab, 1)
    for n in range(2, max_n + 1):
        m = total - n + 1
        if m <= 0:
            ids[n] = np.zeros(0, dtype=np.int64)
            seq_of[n] = np.zeros(0, dtype=np.int64)
            sizes[n] = 1
            starts[n] = np.zeros(0, dtype=np.int64)
            layer = np.zeros(0, dtype=np.int64)
            continue
        valid = remaining[:m] >= n
        key = layer[:m] * base + flat[n - 1 :]
        key = np.where(valid, key, -1)
        uniq, inv = np.unique(key, return_inverse=True)
        # shift so that the invalid marker (-1, first after sorting when present) gets id -1
        shift = 1 if (uniq.size and uniq[0] == -1) else 0
        layer = inv.astype(np.int64) - shift
        ids[n] = layer[valid]
        seq_of[n] = seq[:m][valid]
        sizes[n] = max(int(uniq.size) - shift, 1)
        starts[n] = pos[:m][valid]
    return NgramTable(lens=lens, ids=ids, seqs=seq_of, sizes=sizes, starts=starts)


def factorize(keys: np.ndarray) -> tuple[np.ndarray, int]:
    """Compact ids ``0..K-1`` for integer keys (hash-based, O(n)); equal keys get equal ids."""
    if keys.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a core dependency
        uniq, inv = np.unique(keys, return_inverse=True)
        return inv.astype(np.int64), int(uniq.size)
    if keys.dtype == np.int64 and int(keys.max()) < 2**31 and int(keys.min()) >= 0:
        keys = keys.astype(np.int32)  # a smaller hash table key: measurably faster, same grouping
    codes, uniques = pd.factorize(keys, sort=False)
    return codes.astype(np.int64, copy=False), int(uniques.size)


@dataclass
class GroupedNgrams:
    """n-grams whose ids are private to a *group* of sequences (e.g. a hypothesis and its references): the same
    words in two groups get different ids, so counting per (group, n-gram) is a plain ``bincount``.
    ``ids[n]``/``seqs[n]``: the id and sequence of every n-gram occurrence; ``sizes[n]``: number of ids;
    ``group_of[n][id]``: the group an id belongs to."""

    lens: np.ndarray
    ids: dict[int, np.ndarray]
    seqs: dict[int, np.ndarray]
    sizes: dict[int, int]
    group_of: dict[int, np.ndarray]


def grouped_ngrams(seqs: Sequence[Sequence[str]], groups: np.ndarray, max_n: int) -> GroupedNgrams:
    """Exact n-gram ids (orders 1..max_n) private to each group; ``groups[s]`` is the group of sequence s."""
    flat, lens, vocab = encode(seqs)
    return grouped_ngrams_from_ids(flat, lens, vocab, groups, max_n)


def grouped_ngrams_from_ids(
    flat: np.ndarray, lens: np.ndarray, vocab: int, groups: np.ndarray, max_n: int
) -> GroupedNgrams:
    """:func:`grouped_ngrams` for already integer-encoded sequences (``flat`` ids, ``lens`` per sequence)."""
    total = int(flat.size)
    seq = np.repeat(np.arange(lens.size, dtype=np.int64), lens)
    grp = groups[seq] if total else np.zeros(0, dtype=np.int64)
    tok, v1 = factorize(grp * max(vocab, 1) + flat)
    offsets = np.cumsum(lens) - lens
    remaining = (lens[seq] - (np.arange(total, dtype=np.int64) - offsets[seq])) if total else seq
    ids = {1: tok}
    seq_of = {1: seq}
    sizes = {1: max(v1, 1)}
    group_of = {1: _group_of(tok, grp, max(v1, 1))}
    layer = tok
    base = max(v1, 1)
    for n in range(2, max_n + 1):
        m = total - n + 1
        if m <= 0:
            ids[n] = seq_of[n] = np.zeros(0, dtype=np.int64)
            sizes[n] = 1
            group_of[n] = np.zeros(1, dtype=np.int64)
            layer = np.zeros(0, dtype=np.int64)
            continue
        valid = remaining[:m] >= n
        key = layer[:m][valid] * base + tok[n - 1 :][valid]
        codes, k = factorize(key)
        new_layer = np.full(m, -1, dtype=np.int64)
        new_layer[valid] = codes
        layer = new_layer
        ids[n] = codes
        seq_of[n] = seq[:m][valid]
        sizes[n] = max(k, 1)
        group_of[n] = _group_of(codes, grp[:m][valid], max(k, 1))
    return GroupedNgrams(lens=lens, ids=ids, seqs=seq_of, sizes=sizes, group_of=group_of)


def _group_of(ids: np.ndarray, grp: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    out[ids] = grp
    return out


def count_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct integer keys (sorted) and their counts."""
    if keys.size == 0:
        return keys, np.zeros(0, dtype=np.int64)
    return np.unique(keys, return_counts=True)


def lookup(table_keys: np.ndarray, table_values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Value of each key in a sorted key table, 0 where absent."""
    if table_keys.size == 0 or keys.size == 0:
        return np.zeros(keys.size, dtype=np.int64)
    idx = np.searchsorted(table_keys, keys)
    idx_c = np.minimum(idx, table_keys.size - 1)
    found = table_keys[idx_c] == keys
    return np.where(found, table_values[idx_c], 0)


def group_max(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct key, the maximum value."""
    if keys.size == 0:
        return keys, values
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    v = values[order]
    first = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    return k[first], np.maximum.reduceat(v, first)
