"""Property test: random arrivals, abandonments, late and double submits never break "exactly k".

Hypothesis draws a sequence of annotator actions against a real store (SQLite, fake clock). After the random
phase every annotator finishes what is left. Then every item has exactly k responses, no (item, annotator) pair
twice, and every submit the store answered "accepted" is there with its answer (nothing lost).
"""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from creval.human.store import Store
from tests.human._support import FakeClock, make_study

N_ANN = 4
_counter = itertools.count()

actions = st.lists(st.one_of(
    st.tuples(st.just("work"), st.integers(0, N_ANN - 1), st.integers(0, 2)),
    st.tuples(st.just("abandon"), st.integers(0, N_ANN - 1), st.just(0)),
    st.tuples(st.just("late"), st.integers(0, N_ANN - 1), st.integers(0, 2)),
    st.tuples(st.just("double"), st.integers(0, N_ANN - 1), st.integers(0, 2)),
    st.tuples(st.just("tick"), st.just(0), st.sampled_from([10, 61, 200])),
), max_size=40)


def test_random_arrivals_keep_exactly_k(tmp_path_factory):
    clock = FakeClock()
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('prop') / 'p.db'}", clock=clock)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(ops=actions, n_items=st.integers(1, 4), k=st.integers(1, 3))
    def run(ops, n_items, k):
        name = f"p{next(_counter)}"
        cr = make_study(store, n=n_items, k=k, annotators=N_ANN, name=name, lease_minutes=1)
        ids = [store.annotator_by_token(cr.invites[f"a{i + 1}"])["id"] for i in range(N_ANN)]
        accepted: dict[tuple[int, int], dict] = {}
        pending: dict[int, dict] = {}

        def submit(a, asg, v):
            ans = {"fluency": v, "rhyming": (v + asg["task_id"]) % 3}
            out = store.submit(a, asg["id"], ans, ans)
            assert out in ("accepted", "duplicate", "stale")
            if out == "accepted":
                key = (asg["task_id"], a)
                assert key not in accepted
                accepted[key] = ans
            return out

        for kind, who, v in ops:
            a = ids[who]
            if kind == "tick":
                clock.advance(v)
            elif kind == "work":
                asg = store.claim(a)
                if asg:
                    submit(a, asg, v)
            elif kind == "abandon":
                asg = store.claim(a)
                if asg:
                    pending[a] = asg
            elif kind == "late" and a in pending:
                submit(a, pending.pop(a), v)
            elif kind == "double":
                asg = store.claim(a)
                if asg:
                    first = submit(a, asg, v)
                    second = store.submit(a, asg["id"], {"fluency": 0, "rhyming": 0}, {})
                    assert second == ("duplicate" if first in ("accepted", "duplicate") else "stale")
        clock.advance(3600)  # everything abandoned comes back
        for a in ids:
            while (asg := store.claim(a)) is not None:
                submit(a, asg, 1)
        responses = store.responses(name)
        tasks = {t["id"]: t for t in store.tasks(name)}
        pairs = [(r["key"], r["annotator"]) for r in responses]
        assert len(pairs) == len(set(pairs))  # no duplicates
        expected = min(k, N_ANN)
        for t in tasks.values():
            assert t["done_count"] == expected
            assert sum(1 for r in responses if r["key"] == t["key"]) == expected  # exactly k
        assert len(responses) == len(accepted) == expected * n_items  # nothing lost, nothing extra
        by_key = {t["key"]: tid for tid, t in tasks.items()}
        names = {ids[i]: f"a{i + 1}" for i in range(N_ANN)}
        got = {(by_key[r["key"]], r["annotator"]): r["answer"] for r in responses}
        assert got == {(tid, names[a]): ans for (tid, a), ans in accepted.items()}

    run()
    store.close()
