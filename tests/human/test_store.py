"""Store tests on SQLite and PostgreSQL: claims, leases, exactly k, idempotent submits, event log."""

from __future__ import annotations

import json
import threading

import pytest

from creval.errors import InputError
from creval.human.store import Store, hash_token
from tests.human._support import make_study

ANSWER = {"fluency": 2, "rhyming": 1}


@pytest.fixture
def store(db_url, clock):
    s = Store(db_url, clock=clock)
    yield s
    s.close()


def ann(store, created, name):
    return store.annotator_by_token(created.invites[name])["id"]


def test_tokens_are_stored_hashed(store):
    c = make_study(store)
    with store.read() as conn:
        hashes = [r[0] for r in conn.exec_driver_sql("SELECT token_hash FROM annotator")]
        admin = conn.exec_driver_sql("SELECT admin_token_hash FROM study").scalar()
    assert sorted(hashes) == sorted(hash_token(t) for t in c.invites.values())
    assert all(t not in hashes for t in c.invites.values())
    assert admin == hash_token(c.admin_token) and admin != c.admin_token
    assert store.annotator_by_token("not-a-token") is None
    assert store.study_by_admin_token(c.admin_token)["name"] == "s-challenge_response"


def test_claim_resumes_same_page_and_never_repeats(store):
    c = make_study(store, n=3, k=2)
    a1 = ann(store, c, "a1")
    first = store.claim(a1)
    assert store.claim(a1)["id"] == first["id"]  # a reload shows the same page
    seen = set()
    while (asg := store.claim(a1)) is not None:
        assert asg["task_id"] not in seen
        seen.add(asg["task_id"])
        assert store.submit(a1, asg["id"], ANSWER, {"x": 1}) == "accepted"
    assert len(seen) == 3  # every page once, then nothing more for this annotator


def test_exactly_k_per_item(store):
    c = make_study(store, n=2, k=2, annotators=4)
    ids = [ann(store, c, f"a{i}") for i in range(1, 5)]
    done = 0
    for a in ids:
        while (asg := store.claim(a)) is not None:
            assert store.submit(a, asg["id"], ANSWER, {}) == "accepted"
            done += 1
    assert done == 4  # 2 items x k=2; the last two annotators get nothing
    assert [t["done_count"] for t in store.tasks("s-challenge_response")] == [2, 2]
    p = store.progress("s-challenge_response")
    assert p["complete"] == 2 and p["responses"] == 4 == p["needed"]


def test_double_submit_is_idempotent(store):
    c = make_study(store, n=1, k=1)
    a1 = ann(store, c, "a1")
    asg = store.claim(a1)
    assert store.submit(a1, asg["id"], ANSWER, {"fluency": "2"}) == "accepted"
    assert store.submit(a1, asg["id"], {"fluency": 0, "rhyming": 0}, {"fluency": "0"}) == "duplicate"
    resp = store.responses("s-challenge_response")
    assert len(resp) == 1 and resp[0]["answer"] == ANSWER  # the first answer stands
    kinds = [e["kind"] for e in store.events("s-challenge_response")]
    assert kinds.count("submit") == 1 and kinds.count("submit_duplicate") == 1


def test_expired_lease_returns_item_and_stale_submit_is_refused(store, clock):
    c = make_study(store, n=1, k=1, lease_minutes=1)
    a1, a2 = ann(store, c, "a1"), ann(store, c, "a2")
    asg1 = store.claim(a1)
    assert store.claim(a2) is None  # the only slot is leased
    clock.advance(61)
    asg2 = store.claim(a2)  # abandoned: back in the pool
    assert asg2 is not None and asg2["task_id"] == asg1["task_id"]
    assert store.submit(a2, asg2["id"], ANSWER, {}) == "accepted"
    assert store.submit(a1, asg1["id"], ANSWER, {"late": True}) == "stale"  # the stale page
    assert store.tasks("s-challenge_response")[0]["done_count"] == 1
    assert "submit_stale" in [e["kind"] for e in store.events("s-challenge_response")]


def test_expired_lease_still_accepted_when_room_left(store, clock):
    c = make_study(store, n=1, k=1, lease_minutes=1)
    a1 = ann(store, c, "a1")
    asg = store.claim(a1)
    clock.advance(3600)
    assert store.submit(a1, asg["id"], ANSWER, {}) == "accepted"


def test_returning_annotator_resumes_after_expiry(store, clock):
    c = make_study(store, n=2, k=1, lease_minutes=1)
    a1 = ann(store, c, "a1")
    asg = store.claim(a1)
    clock.advance(120)
    again = store.claim(a1)
    assert again["id"] == asg["id"] and again["lease_expires"] > clock()


def test_annotators_only_touch_their_own_assignments(store):
    c = make_study(store, n=2, k=1)
    a1, a2 = ann(store, c, "a1"), ann(store, c, "a2")
    asg = store.claim(a1)
    assert store.assignment(a2, asg["id"]) is None
    assert store.submit(a2, asg["id"], ANSWER, {}) == "forbidden"
    assert store.save_draft(a2, asg["id"], "x") is False
    assert store.tasks("s-challenge_response")[0]["done_count"] == 0


def test_drafts_and_event_log(store):
    c = make_study(store, "post_editing", n=1, k=1)
    a1 = ann(store, c, "a1")
    asg = store.claim(a1)
    assert store.save_draft(a1, asg["id"], "the cat sat on the mat")
    assert store.claim(a1)["draft"] == "the cat sat on the mat"
    store.submit(a1, asg["id"], {"edited": "the cat sat"}, {"edited": "the cat sat"})
    assert store.save_draft(a1, asg["id"], "too late") is False
    ev = store.events("s-post_editing")
    assert [e["kind"] for e in ev][:3] == ["create", "claim", "draft"]
    assert json.loads(ev[-1]["payload"]) == {"length": 8}


def test_duplicate_study_name_refused(store):
    make_study(store)
    with pytest.raises(InputError, match="already exists"):
        make_study(store)


def test_concurrent_claims_never_exceed_k(store):
    c = make_study(store, n=5, k=2, annotators=12)
    ids = [ann(store, c, f"a{i:02d}") for i in range(1, 13)]
    results: list[str] = []
    errors: list[BaseException] = []

    def work(a):
        try:
            while (asg := store.claim(a)) is not None:
                results.append(store.submit(a, asg["id"], ANSWER, {}))
                results.append(store.submit(a, asg["id"], ANSWER, {}))  # a double click
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(a,)) for a in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results.count("accepted") == 10 and results.count("duplicate") == 10
    resp = store.responses("s-challenge_response")
    pairs = [(r["key"], r["annotator"]) for r in resp]
    assert len(pairs) == len(set(pairs)) == 10
    assert all(t["done_count"] == 2 for t in store.tasks("s-challenge_response"))


def test_side_by_side_follows_the_plan(store):
    c = make_study(store, "side_by_side", n=6, k=2, annotators=4)
    plan = store.plan_rows("s-side_by_side")
    by_ann: dict[str, list[str]] = {}
    for r in plan:
        by_ann.setdefault(r["name"], []).append(r["key"])
    assert sum(len(v) for v in by_ann.values()) == 12
    for name, pages in by_ann.items():
        a = ann(store, c, name)
        got = []
        while (asg := store.claim(a)) is not None:
            got.append(asg["key"])
            store.submit(a, asg["id"], {"ratings": [3, 4, 5]}, {})
        assert got == pages  # exactly the planned pages, in the planned order


def test_add_annotators(store):
    make_study(store)
    inv = store.add_annotators("s-challenge_response", ["late1"])
    assert store.annotator_by_token(inv["late1"])["name"] == "late1"
    with pytest.raises(InputError, match="already used"):
        store.add_annotators("s-challenge_response", ["a1"])


def test_migrations_match_the_models(db_url):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from creval.human.models import metadata

    s = Store(db_url)
    with s.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    s.close()
    assert diff == []
