"""Benchmark of creval's music stage beside straightforward implementations, on the same input in one run.

1. MGEval features of all Nottingham melodies (../shared/data/nottingham-melody, 1,034 files): creval
   (mido reader + numpy features) vs a per-file pretty_midi implementation in MGEval's style (piano rolls,
   pretty_midi's transition matrix, Python loops over notes). Target: creval under 20 s.
2. Intra/inter-set distances, KDE, KL and OA for two sets of 500 melodies over all 12 features: creval
   (``compare_sets``, compat and corrected modes) vs MGEval's loop (``c_dist`` per sample, ``gaussian_kde``,
   ``entropy`` on two grids, ``quad`` overlap), the latter timed on a subset of features and scaled up.
   Target: creval under 30 s.
3. 1,000 Mongeau–Sankoff alignments of 64-note melodies: creval batched, creval one call per pair, and a plain
   Python dynamic programme (timed on 100 pairs, scaled to 1,000). Target: creval under 10 s.

Run: ``.venv/bin/python bench/music.py`` (add ``--quick`` for a smaller run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "nottingham-melody"


def _line(label: str, ours: float, theirs: float, note: str = "") -> None:
    ratio = theirs / ours if ours > 0 else float("inf")
    print(f"  {label:<44} creval {ours:8.2f} s | straightforward {theirs:8.2f} s | {ratio:6.1f}x faster {note}")


# ------------------------------------------------------------------------------------ 1. features
def pretty_midi_features(path: Path) -> dict[str, object]:
    """A straightforward per-file implementation of the same 12 features, MGEval style, on pretty_midi."""
    import pretty_midi

    pm = pretty_midi.PrettyMIDI(str(path))
    inst = [i for i in pm.instruments if not i.is_drum][0]
    roll = inst.get_piano_roll(fs=100)
    used = np.flatnonzero(roll.sum(axis=1) > 0)
    pch = np.zeros(12)
    for p in range(128):
        pch[p % 12] += roll[p].sum()
    ts = pm.time_signature_changes[0] if pm.time_signature_changes else None
    num, den = (ts.numerator, ts.denominator) if ts else (4, 4)
    bar_s = pm.get_beats()  # beat times; a bar is `num` beats in MGEval's reading
    notes = sorted(inst.notes, key=lambda n: (n.start, n.pitch))
    bar_len_s = 60.0 / pm.get_tempo_changes()[1][0] * num * 4 / den
    n_bars = int(np.ceil(pm.get_end_time() / bar_len_s))
    bar_notes = np.zeros(n_bars)
    bar_pitches = [set() for _ in range(n_bars)]
    bar_pch = np.zeros((n_bars, 12))
    for n in notes:
        b = min(int(n.start // bar_len_s), n_bars - 1)
        bar_notes[b] += 1
        bar_pitches[b].add(n.pitch)
        bar_pch[b, n.pitch % 12] += n.end - n.start
    unit = (num * 4 / den) / 96 * 60.0 / pm.get_tempo_changes()[1][0]
    classes = np.array([96, 48, 24, 12, 6, 72, 36, 18, 9, 32, 16, 8]) * unit
    nlh = np.zeros(12)
    nltm = np.zeros((12, 12))
    last = None
    for n in notes:
        idx = int(np.argmin(np.abs(classes - (n.end - n.start))))
        nlh[idx] += 1
        if last is not None:
            nltm[last, idx] += 1
        last = idx
    pitches = [n.pitch for n in notes]
    del bar_s
    return {
        "total_used_pitch": len(used), "bar_used_pitch": [len(s) for s in bar_pitches],
        "total_used_note": len(notes), "bar_used_note": bar_notes, "pch": pch / pch.sum(), "bar_pch": bar_pch,
        "pctm": pm.get_pitch_class_transition_matrix(), "pitch_range": used.max() - used.min(),
        "avg_pitch_shift": np.mean(np.abs(np.diff(pitches))), "avg_IOI": np.mean(np.diff(pm.get_onsets())),
        "nlh": nlh / nlh.sum(), "nltm": nltm,
    }


def bench_features(files: list[Path]) -> list[dict[str, np.ndarray]]:
    from creval.music.features import extract_features
    from creval.music.io import read_piece

    t0 = time.perf_counter()
    feats = [extract_features(read_piece(f), num_bars=8) for f in files]
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    for f in files:
        pretty_midi_features(f)
    theirs = time.perf_counter() - t0
    print(f"1. features of {len(files)} Nottingham melodies (all 12 MGEval features, per-bar ones over 8 bars)")
    _line("read + features", ours, theirs, "(target < 20 s)")
    return feats


# ------------------------------------------------------------------------------------ 2. distances
def mgeval_loop(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """MGEval's demo notebook and utils.py, restated: c_dist loops, gaussian_kde, entropy, quad."""
    from scipy import integrate, stats

    a = a.reshape(len(a), -1)
    b = b.reshape(len(b), -1)
    intra = []
    for i in range(len(b)):
        rest = np.delete(b, i, axis=0)
        intra.extend(np.linalg.norm(b[i] - rest[j]) for j in range(len(rest)))
    inter = []
    for i in range(len(a)):
        inter.extend(np.linalg.norm(a[i] - b[j]) for j in range(len(b)))
    intra, inter = np.array(intra), np.array(inter)
    pa, pb = stats.gaussian_kde(intra), stats.gaussian_kde(inter)
    kl = stats.entropy(pa(np.linspace(intra.min(), intra.max(), 1000)), pb(np.linspace(inter.min(), inter.max(), 1000)))
    lo, hi = min(intra.min(), inter.min()), max(intra.max(), inter.max())
    oa = integrate.quad(lambda x: min(pa(x)[0], pb(x)[0]), lo, hi)[0]
    return float(kl), float(oa)


def bench_distances(feats: list[dict[str, np.ndarray]], n: int, anchor_n: int) -> None:
    from creval.music.features import feature_table
    from creval.music.mgeval import compare_sets

    gen = feature_table(feats[:n])
    ref = feature_table(feats[n: 2 * n])
    print(f"2. intra/inter distances + KDE + KL/OA, two sets of {n}, all {len(gen)} features")
    for mode in ("compat", "corrected"):
        t0 = time.perf_counter()
        compare_sets(gen, ref, mode=mode)
        print(f"  creval {mode:<10} {time.perf_counter() - t0:8.2f} s (target < 30 s)")
    # like for like with MGEval's loop (per-sample c_dist, gaussian_kde, entropy, quad): one feature, small
    # sets, because the loop's quad over a KDE of N(N-1) points does not finish in minutes at N = 500
    name = "pitch_range"
    g, r = gen[name][:anchor_n], ref[name][:anchor_n]
    t0 = time.perf_counter()
    ours = compare_sets({name: g}, {name: r}, mode="compat")[name]
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # quad's subdivision warnings on the kinked min(p, q)
        kl, oa = mgeval_loop(g, r)
    t_theirs = time.perf_counter() - t0
    _line(f"one feature, two sets of {anchor_n} (compat)", t_ours, t_theirs)
    print(f"     {name}: KL creval {ours.kl:.4f} vs MGEval {kl:.4f} | OA creval {ours.oa:.4f} vs MGEval {oa:.4f}")


# ------------------------------------------------------------------------------------ 3. Mongeau–Sankoff
def ms_plain(a, b, k: float = 0.348, F: int = 4) -> float:  # noqa: N803
    """A plain Python dynamic programme of the same recurrence (lengths in sixteenths)."""
    from creval.music.edit import INTERVAL_WEIGHTS

    table = [float(x) for x in INTERVAL_WEIGHTS]
    (pa, la), (pb, lb) = a, b
    pa = [int(x) for x in pa]
    pb = [int(x) for x in pb]
    la = [float(x) for x in la]
    lb = [float(x) for x in lb]
    la = [x * 4 for x in la]
    lb = [x * 4 for x in lb]
    n, m = len(pa), len(pb)

    def w(x: int, y: int) -> float:
        return table[abs(x - y) % 12]

    d = [[0.0] * (m + 1) for _ in range(n + 1)]
    for j in range(1, m + 1):
        d[0][j] = d[0][j - 1] + k * lb[j - 1]
    for i in range(1, n + 1):
        d[i][0] = d[i - 1][0] + k * la[i - 1]
        for j in range(1, m + 1):
            best = min(d[i - 1][j] + k * la[i - 1], d[i][j - 1] + k * lb[j - 1],
                       d[i - 1][j - 1] + w(pa[i - 1], pb[j - 1]) + k * abs(la[i - 1] - lb[j - 1]))
            for f in range(2, min(F, j) + 1):
                cost = sum(w(pa[i - 1], pb[q]) for q in range(j - f, j)) + k * abs(la[i - 1] - sum(lb[j - f:j]))
                best = min(best, d[i - 1][j - f] + cost)
            for c in range(2, min(F, i) + 1):
                cost = sum(w(pa[q], pb[j - 1]) for q in range(i - c, i)) + k * abs(sum(la[i - c:i]) - lb[j - 1])
                best = min(best, d[i - c][j - 1] + cost)
            d[i][j] = best
    return d[n][m]


def bench_ms(feats_files: list[Path], pairs_n: int, plain_n: int) -> None:
    from creval.music.edit import mongeau_sankoff, mongeau_sankoff_batch
    from creval.music.io import read_piece

    melodies = []
    for f in feats_files:
        t = read_piece(f).notes()
        if len(t) >= 64:
            melodies.append((t.pitch[:64].copy(), t.duration[:64].copy()))
        if len(melodies) >= 200:
            break
    rng = np.random.default_rng(0)
    pairs = [(melodies[i], melodies[j]) for i, j in rng.integers(0, len(melodies), (pairs_n, 2))]
    print(f"3. {pairs_n} Mongeau–Sankoff alignments of 64-note Nottingham melodies (F = 4, k = 0.348)")
    t0 = time.perf_counter()
    batch = mongeau_sankoff_batch(pairs)
    t_batch = time.perf_counter() - t0
    t0 = time.perf_counter()
    single = [mongeau_sankoff(a, b) for a, b in pairs]
    t_single = time.perf_counter() - t0
    t0 = time.perf_counter()
    plain = [ms_plain(a, b) for a, b in pairs[:plain_n]]
    t_plain = (time.perf_counter() - t0) * pairs_n / plain_n
    assert np.allclose(batch[:plain_n], plain) and np.allclose(batch, single)
    _line("batched (one call)", t_batch, t_plain, f"(target < 10 s; plain Python timed on {plain_n}, scaled)")
    _line("one call per pair", t_single, t_plain)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sets (for a smoke run)")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        print(f"needs the Nottingham melodies at {DATA}", file=sys.stderr)
        return 1
    files = sorted(DATA.glob("*.mid"))
    if args.quick:
        files = files[:120]
    import pretty_midi  # noqa: F401
    import scipy.stats  # noqa: F401

    import creval.music.features  # noqa: F401 - warm imports outside the timings

    feats = bench_features(files)
    n = 50 if args.quick else 500
    bench_distances(feats, n, anchor_n=30)
    bench_ms(files, 100 if args.quick else 1000, 10 if args.quick else 100)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
