"""Complete every study type in headless Chromium against the real app served by uvicorn on loopback.

Covers: invite link, guidelines, each page type, a reload mid-task, a double submit, a stale page, draft
autosave, a no-JavaScript run, and the admin side (results page, exports).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import socket
import struct
import threading
import time
import zlib
from pathlib import Path

import pytest

from creval.human.config import parse_study
from creval.human.designs import load_items
from creval.human.store import Store
from creval.human.web.app import create_app
from tests.human._support import example_rows

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def _png(w: int = 8, h: int = 6) -> bytes:
    raw = b"".join(b"\x00" + bytes([200, 120, 40]) * w for _ in range(h))

    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _chromium() -> str:
    path = os.environ.get("CREVAL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise RuntimeError(f"chromium not found at {path}: install Debian's chromium (make test does)")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


STUDIES = {
    # name: (type, n items, k, annotators, extra config)
    "b-cr": ("challenge_response", 3, 1, 3, {"lease_minutes": 0.02}),
    "b-flu": ("fluency_coherence", 2, 2, 2, {}),
    "b-style": ("style_matching", 1, 1, 1, {}),
    "b-sbs": ("side_by_side", 2, 2, 2, {}),
    "b-edit": ("post_editing", 2, 1, 1, {}),
    "b-nojs": ("challenge_response", 1, 1, 1, {}),
    "b-admin": ("side_by_side", 2, 2, 2, {}),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    root = tmp_path_factory.mktemp("browser")
    store = Store(f"sqlite:///{root / 'studies.db'}")
    created = {}
    for name, (stype, n, k, annotators, extra) in STUDIES.items():
        rows = example_rows(stype, n)
        if stype == "side_by_side":
            (root / "img.png").write_bytes(_png())
            for r in rows:
                r["image"] = "img.png"
        items = root / f"{name}.jsonl"
        items.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
        cfg = parse_study({"name": name, "type": stype, "items": items.name, "k": k, "annotators": annotators,
                           "title": f"Study {name}",
                           "guidelines": {"text": "Read carefully.\n\nRate honestly.",
                                          "examples": [{"text": "an example line", "label": "good"}]},
                           **extra})
        created[name] = store.create_study(cfg, load_items(stype, items, seed=cfg.seed))
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(store=store), host="127.0.0.1", port=port,
                                        log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.time() + 20
    while not srv.started:
        if time.time() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    yield {"base": f"http://127.0.0.1:{port}", "store": store, "created": created}
    srv.should_exit = True
    th.join(timeout=10)
    store.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def _join(browser, server, study, who, **ctx_kwargs):
    ctx = browser.new_context(**ctx_kwargs)
    page = ctx.new_page()
    page.goto(f"{server['base']}/join/{server['created'][study].invites[who]}")
    assert "/guidelines" in page.url
    assert "Read carefully." in page.content()
    return ctx, page


def _start(page):
    page.click("[data-testid=start]")
    page.wait_for_url("**/task*")


def _no_system_names(page):
    html = page.content()
    assert "secret-sys" not in html


def test_challenge_response_reload_double_submit_and_stale_page(browser, server):
    store = server["store"]
    ctx1, p1 = _join(browser, server, "b-cr", "a1")
    assert "an example line" in p1.content()  # examples shown (condition "all")
    _start(p1)
    _no_system_names(p1)
    challenge = p1.text_content("[data-testid=challenge]")
    p1.check("input[name=fluency][value='2']")
    p1.reload()  # reload mid-task: the same page comes back
    assert p1.text_content("[data-testid=challenge]") == challenge
    assert "0 of 3" in p1.text_content("[data-testid=progress-text]")
    p1.check("input[name=fluency][value='2']")
    p1.check("input[name=rhyming][value='1']")
    form = {"csrf": p1.get_attribute("input[name=csrf]", "value"), "fluency": "2", "rhyming": "1"}
    action = p1.get_attribute("[data-testid=task-form]", "action")
    p1.dblclick("[data-testid=submit]")  # double click
    p1.wait_for_selector("[data-testid=message]")
    # a retried POST of the same form (as a flaky network would send it): no duplicate, no error
    resp = p1.request.post(server["base"] + action, form=form)
    assert resp.ok and "already been saved" in resp.text()
    rows = store.responses("b-cr")
    assert len(rows) == 1 and rows[0]["answer"] == {"fluency": 2, "rhyming": 1}
    assert "1 of 3" in p1.text_content("[data-testid=progress-text]")

    # stale page: a1 keeps page 2 open past its lease; a2 takes and completes it; a1's submit is not counted
    stale_challenge = p1.text_content("[data-testid=challenge]")
    time.sleep(1.6)  # lease_minutes = 0.02 -> 1.2 s
    ctx2, p2 = _join(browser, server, "b-cr", "a2")
    _start(p2)
    assert p2.text_content("[data-testid=challenge]") == stale_challenge  # the abandoned page came back
    p2.check("input[name=fluency][value='0']")
    p2.check("input[name=rhyming][value='0']")
    p2.click("[data-testid=submit]")
    p2.wait_for_selector("[data-testid=message]")
    p1.check("input[name=fluency][value='2']")
    p1.check("input[name=rhyming][value='2']")
    p1.click("[data-testid=submit]")
    p1.wait_for_selector("[data-testid=message]")
    assert "expired" in p1.text_content("[data-testid=message]")
    # a2 now holds the last page's lease, so a1 is shown either a new page or the end page, never the stale one
    if p1.locator("[data-testid=challenge]").count():
        assert p1.text_content("[data-testid=challenge]") != stale_challenge
    done = {(r["key"], r["annotator"]): r["answer"] for r in store.responses("b-cr")}
    assert len(done) == 2 and sum(1 for k in done if k[1] == "a2") == 1
    assert [t["done_count"] for t in store.tasks("b-cr")].count(1) == 2
    ctx1.close()
    ctx2.close()


def test_fluency_coherence(browser, server):
    for who in ("a1", "a2"):
        ctx, page = _join(browser, server, "b-flu", who)
        _start(page)
        for _ in range(2):
            _no_system_names(page)
            lines = page.locator("[data-testid=line]")
            assert lines.count() == 3
            for i in range(3):
                page.check(f"input[name=fluency_{i}][value='{2 if i else 1}']")
                if i:
                    page.check(f"input[name=coherence_{i}][value='2']")
            page.click("[data-testid=submit]")
            page.wait_for_selector("[data-testid=message]")
        assert page.locator("[data-testid=done]").count() == 1
        ctx.close()
    rows = server["store"].responses("b-flu")
    assert len(rows) == 4
    assert all(r["answer"] == {"fluency": [1, 2, 2], "coherence": [None, 2, 2]} for r in rows)


def test_style_matching(browser, server):
    ctx, page = _join(browser, server, "b-style", "a1")
    _start(page)
    n = 0
    while page.locator("[data-testid=done]").count() == 0:
        _no_system_names(page)
        assert page.locator("[data-testid=candidate]").count() == 4
        html = page.content()
        assert "artist0" not in html  # candidates are anonymous
        page.check(f"input[name=choice][value='{n % 4}']")
        page.click("[data-testid=submit]")
        page.wait_for_load_state()
        n += 1
    assert n == 4  # 13 artists: each verse on 4 pages
    rows = server["store"].responses("b-style")
    assert sorted(r["answer"]["choice"] for r in rows) == [0, 1, 2, 3]
    ctx.close()


def test_side_by_side_with_image(browser, server):
    for who in ("a1", "a2"):
        ctx, page = _join(browser, server, "b-sbs", who)
        _start(page)
        for _ in range(2):
            _no_system_names(page)
            assert page.locator("img.context-image").evaluate("img => img.naturalWidth") == 8
            assert page.locator("[data-testid=output]").count() == 3
            for i in range(3):
                page.check(f"input[name=rating_{i}][value='{i + 2}']")
            page.click("[data-testid=submit]")
            page.wait_for_load_state()
        assert page.locator("[data-testid=done]").count() == 1
        ctx.close()
    rows = server["store"].responses("b-sbs")
    assert len(rows) == 4 and all(r["answer"] == {"ratings": [2, 3, 4]} for r in rows)


def test_post_editing_autosaves_draft(browser, server):
    ctx, page = _join(browser, server, "b-edit", "a1")
    _start(page)
    _no_system_names(page)
    original = page.text_content("[data-testid=original]")
    assert page.input_value("[data-testid=editor]") == original
    page.fill("[data-testid=editor]", "the cat sat on the mat\nsecond line")
    from playwright.sync_api import expect

    expect(page.locator("[data-testid=draft-status]")).to_have_text("Draft saved")
    page.reload()  # the draft survives a reload
    assert page.input_value("[data-testid=editor]") == "the cat sat on the mat\nsecond line"
    page.click("[data-testid=submit]")
    page.wait_for_selector("[data-testid=message]")
    page.fill("[data-testid=editor]", "")  # empty edit is refused server-side
    page.evaluate("document.querySelector('[data-testid=editor]').removeAttribute('required')")
    page.click("[data-testid=submit]")
    page.wait_for_selector("[data-testid=error]")
    assert "empty" in page.text_content("[data-testid=error]")
    ctx.close()
    from creval.human.export import tidy_rows

    her = [r for r in tidy_rows(server["store"], "b-edit") if r["criterion"] == "her"]
    assert len(her) == 1
    # "the cat sat on mat 0 / second line" -> "the cat sat on the mat / second line": insert "the", delete "0": 2 edits over the 8 words of the edit
    assert her[0]["value"] == pytest.approx(2 / 8)


def test_forms_work_without_javascript(browser, server):
    ctx, page = _join(browser, server, "b-nojs", "a1", java_script_enabled=False)
    _start(page)
    page.check("input[name=fluency][value='1']")
    page.check("input[name=rhyming][value='0']")
    page.click("[data-testid=submit]")
    page.wait_for_selector("[data-testid=done]")
    assert server["store"].responses("b-nojs")[0]["answer"] == {"fluency": 1, "rhyming": 0}
    ctx.close()


def test_admin_results_and_exports(browser, server):
    store = server["store"]  # the judgements come in through the store; this test is about the admin side
    for who, ratings in (("a1", [2, 3, 4]), ("a2", [3, 3, 5])):
        a = store.annotator_by_token(server["created"]["b-admin"].invites[who])
        store.mark_guidelines(a["id"])
        while (asg := store.claim(a)) is not None:
            assert store.submit(a, asg["id"], {"ratings": ratings}, {}) == "accepted"
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{server['base']}/admin/b-admin")
    assert "/login" in page.url  # no token, no admin page
    page.fill("input[name=token]", server["created"]["b-admin"].admin_token)
    page.click("button[type=submit]")
    page.wait_for_url("**/admin/b-admin")
    assert "2 of 2 pages complete" in page.text_content("[data-testid=admin-progress]")
    page.click("text=Results and agreement")
    page.wait_for_url("**/results")
    text = page.content()
    assert "ICC(2,1)" in text and "secret-sys-0" in text  # system identities on the admin side only
    resp = page.request.get(f"{server['base']}/admin/b-admin/export/judgements.csv")
    rows = list(csv.DictReader(io.StringIO(resp.text())))
    assert len(rows) == 12 and {r["criterion"] for r in rows} == {"rating"}
    other = browser.new_context().request.get(f"{server['base']}/admin/b-admin/export/judgements.csv")
    assert other.status == 401
    ctx.close()
