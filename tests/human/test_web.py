"""API tests of the web app (FastAPI TestClient) on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from fastapi.testclient import TestClient

from creval.human.store import Store
from creval.human.web.app import create_app
from tests.human._support import make_study


@pytest.fixture
def env(db_url, clock):
    store = Store(db_url, clock=clock)
    app = create_app(store=store)
    yield store, app
    store.close()


def csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def action(html: str) -> str:
    return re.search(r'action="(/task/\d+)"', html).group(1)


def login(app, token) -> tuple[TestClient, str]:
    c = TestClient(app)
    r = c.get(f"/join/{token}")
    assert r.status_code == 200 and r.url.path == "/guidelines"
    r = c.post("/guidelines", data={"csrf": csrf(r.text)})
    assert r.url.path == "/task"
    return c, r.text


def test_full_flow_with_prg_and_idempotent_submit(env):
    store, app = env
    cr = make_study(store, n=2, k=1)
    c, html = login(app, cr.invites["a1"])
    assert "secret-sys" not in html and "0 of 2 pages done" in html
    data = {"csrf": csrf(html), "fluency": "2", "rhyming": "0"}
    r = c.post(action(html), data=data, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/task?m=saved"  # redirect after post
    r2 = c.post(action(html), data=data, follow_redirects=False)
    assert r2.status_code == 303 and r2.headers["location"] == "/task?m=dup"
    assert len(store.responses(cr.name)) == 1
    assert "1 of 2 pages done" in c.get("/task").text


def test_csrf_and_session_required(env):
    store, app = env
    cr = make_study(store, n=1, k=1)
    c, html = login(app, cr.invites["a1"])
    r = c.post(action(html), data={"csrf": "forged", "fluency": "2", "rhyming": "0"})
    assert r.status_code == 403
    r = c.post(action(html), data={"fluency": "2", "rhyming": "0"})
    assert r.status_code == 403
    anon = TestClient(app)
    assert anon.get("/task").status_code == 401
    assert anon.post(action(html), data={"csrf": csrf(html)}).status_code == 401
    assert anon.get("/join/bogus").status_code == 404
    assert store.responses(cr.name) == []


def test_annotators_cannot_touch_others_pages(env):
    store, app = env
    cr = make_study(store, n=2, k=1)
    c1, html1 = login(app, cr.invites["a1"])
    c2, html2 = login(app, cr.invites["a2"])
    r = c2.post(action(html1), data={"csrf": csrf(html2), "fluency": "2", "rhyming": "0"})
    assert r.status_code == 403
    r = c2.post(action(html1) + "/draft", data={"csrf": csrf(html2), "edited": "x"}, follow_redirects=False)
    assert r.headers["location"] == "/task?m=gone"
    assert store.responses(cr.name) == []
    assert "submit_forbidden" in [e["kind"] for e in store.events(cr.name)]


def test_server_side_validation(env):
    store, app = env
    cr = make_study(store, "side_by_side", n=2, k=1, annotators=1)
    c, html = login(app, cr.invites["a1"])
    r = c.post(action(html), data={"csrf": csrf(html), "rating_0": "5", "rating_1": "9", "rating_2": "1"})
    assert r.status_code == 422 and "rating_1: 9 is not one of" in r.text
    assert 'value="5" required checked' in r.text  # the annotator's other answers are kept
    r = c.post(action(html), data={"csrf": csrf(html), "rating_0": "5", "rating_1": "4"})
    assert r.status_code == 422 and "missing" in r.text
    assert store.responses(cr.name) == []
    kinds = [e["kind"] for e in store.events(cr.name)]
    assert kinds.count("submit_invalid") == 2


@pytest.mark.parametrize("stype,form", [
    ("fluency_coherence", {"fluency_0": "2", "fluency_1": "1", "fluency_2": "0", "coherence_1": "2",
                           "coherence_2": "1"}),
    ("style_matching", {"choice": "1"}),
    ("challenge_response", {"fluency": "1", "rhyming": "2"}),
    ("side_by_side", {"rating_0": "1", "rating_1": "3", "rating_2": "5"}),
    ("post_editing", {"edited": "the cat sat on the mat\nsecond line"}),
])
def test_every_type_pages_hide_systems_and_export(env, stype, form):
    store, app = env
    cr = make_study(store, stype, n=2, k=2, annotators=2)
    for who in ("a1", "a2"):
        c, html = login(app, cr.invites[who])
        while 'data-testid="done"' not in html:
            assert "secret-sys" not in html  # no system identity in annotator HTML
            html = c.post(action(html), data={"csrf": csrf(html), **form}).text
    admin = TestClient(app, headers={"Authorization": f"Bearer {cr.admin_token}"})
    rows = list(csv.DictReader(io.StringIO(admin.get(f"/admin/{cr.name}/export/judgements.csv").text)))
    assert rows and all(r["system"].startswith("secret-sys") for r in rows)
    pages = {r["page"] for r in rows}
    assert all(sum(1 for r in rows if r["page"] == p and r["criterion"] == rows[0]["criterion"]
                   and r["unit"] == rows[0]["unit"]) in (0, 2) for p in pages)
    design = admin.get(f"/admin/{cr.name}/export/design.json").json()
    assert design["type"] == stype and design["k"] == 2
    crit = design["criteria"][0]
    m = admin.get(f"/admin/{cr.name}/export/matrix/{crit}.csv").text.splitlines()
    assert m[0] == "unit,a1,a2" and len(m) > 1
    jl = [json.loads(x) for x in admin.get(f"/admin/{cr.name}/export/judgements.jsonl").text.splitlines()]
    assert len(jl) == len(rows)
    res = admin.get(f"/admin/{cr.name}/results")
    assert res.status_code == 200 and "Agreement" in res.text
    ev = admin.get(f"/admin/{cr.name}/export/events.jsonl").text
    assert '"kind": "submit"' in ev


def test_admin_routes_need_the_right_token(env):
    store, app = env
    a = make_study(store, name="one")
    b = make_study(store, name="two")
    anon = TestClient(app)
    for path in ("", "/results", "/export/judgements.csv", "/export/design.json", "/export/matrix/fluency.csv"):
        assert anon.get(f"/admin/one{path}").status_code == 401
        wrong = anon.get(f"/admin/one{path}", headers={"Authorization": f"Bearer {b.admin_token}"})
        assert wrong.status_code == 401
        ok = anon.get(f"/admin/one{path}", headers={"Authorization": f"Bearer {a.admin_token}"})
        assert ok.status_code == 200
    browser = TestClient(app)
    r = browser.get(f"/admin/one/login?token={a.admin_token}")
    assert r.url.path == "/admin/one" and "pages complete" in r.text
    assert browser.get("/admin/two").status_code == 401


def test_security_headers(env):
    store, app = env
    make_study(store)
    r = TestClient(app).get("/")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY"
