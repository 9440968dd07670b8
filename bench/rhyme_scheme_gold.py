"""Per-poet rhyme-scheme accuracy and pair F1 on the Chicago Rhyming Poetry Corpus gold, beside the baseline.

Usage: python bench/rhyme_scheme_gold.py [GOLD_DIR] [--param value ...]   (e.g. --schemes all4 --prior False)

Protocol (see creval.rhyme.scheme.evaluate_on_gold): gold stanza boundaries given; for each poet an HMM is
trained unsupervised on that poet's end words and labels all its stanzas with ``label_units`` (a prior over
whole-stanza schemes fitted by EM; ``--prior False``: each stanza alone with ``label_groups``). Baseline: the most common scheme for the
stanza length among the OTHER 21 poets' gold (leave-one-poet-out); the oracle column takes it from the poet's own
gold (it peeks at the labels).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from creval.rhyme.scheme import baseline_table, evaluate_on_gold, read_pgold

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "shared" / "data" / "chicago-rhyme" / "english_gold"


class _NoModel:
    """Stands in for a model when only the oracle baseline is wanted (labels every stanza unrhymed)."""

    def label_groups(self, words):
        return tuple(range(len(words)))


def _value(text: str):
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def main(argv: list[str]) -> int:
    args = list(argv)
    gold_dir = Path(args.pop(0)) if args and not args[0].startswith("--") else DEFAULT
    params: dict = {}
    while args:
        key = args.pop(0).lstrip("-").replace("-", "_")
        value = args.pop(0)
        params[key] = _value(value)
    files = sorted(gold_dir.glob("*.pgold"))
    stanzas = {f.stem: read_pgold(f)[0] for f in files}
    header = f"{'poet':<10} {'n':>5} {'acc':>6} {'base':>6} {'oracle':>6} {'F1':>6} {'baseF1':>6} {'P':>6} {'R':>6}  win"
    print(header)
    rows = []
    t0 = time.perf_counter()
    for f in files:
        others = [st for name, sts in stanzas.items() if name != f.stem for st in sts]
        res = evaluate_on_gold(f, baseline=baseline_table(others), **params)
        oracle = evaluate_on_gold(f, model=_NoModel(), baseline=None)["baseline"]
        m, b = res["model"], res["baseline"]
        win = m["accuracy"] > b["accuracy"] and m["f1"] > b["f1"]
        rows.append((m, b, oracle))
        print(
            f"{f.stem:<10} {int(m['stanzas']):>5} {m['accuracy']:6.3f} {b['accuracy']:6.3f} {oracle['accuracy']:6.3f} "
            f"{m['f1']:6.3f} {b['f1']:6.3f} {m['precision']:6.3f} {m['recall']:6.3f}  {'yes' if win else 'NO'}"
        )
    n = sum(r[0]["stanzas"] for r in rows)
    acc = sum(r[0]["accuracy"] * r[0]["stanzas"] for r in rows) / n
    bacc = sum(r[1]["accuracy"] * r[1]["stanzas"] for r in rows) / n
    oacc = sum(r[2]["accuracy"] * r[2]["stanzas"] for r in rows) / n
    print(f"{'all':<10} {int(n):>5} {acc:6.3f} {bacc:6.3f} {oacc:6.3f}   (stanza-weighted accuracy)")
    print(
        f"poets where the model beats the baseline on both accuracy and F1: "
        f"{sum(r[0]['accuracy'] > r[1]['accuracy'] and r[0]['f1'] > r[1]['f1'] for r in rows)}/{len(rows)}"
        f"  ({time.perf_counter() - t0:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
