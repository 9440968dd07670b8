"""The study web application (FastAPI + Jinja2; every form works without JavaScript).

Annotator routes (the invite link sets an HttpOnly, SameSite=Lax session cookie holding the invite token):

- ``GET /join/{token}``: sign in with an invite link, then the guidelines (first visit) or the current page.
- ``GET /guidelines``, ``POST /guidelines``: the instructions (with or without examples, by condition).
- ``GET /task``: the annotator's current page (claimed with a lease; a reload shows the same page).
- ``POST /task/{assignment}``: submit (CSRF-checked, validated, idempotent), then redirect (PRG) to ``/task``.
- ``POST /task/{assignment}/draft``: save a post-editing draft (autosaved by the page's script).

Admin routes (``Authorization: Bearer <admin token>`` or the cookie set by ``/admin/{study}/login``):
``/admin/{study}`` (progress, per-annotator counts and time per page), ``/admin/{study}/results``,
``/admin/{study}/export/judgements.csv|judgements.jsonl|design.json|events.jsonl|matrix/{criterion}.csv``.

Annotator HTML is rendered from a page's ``display`` part only; system names live in ``hidden`` and never reach
it. Responses carry a strict Content-Security-Policy (no inline scripts, images only from the page itself or
``data:``) and refuse framing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders

from creval.human import designs
from creval.human.config import StudyConfig
from creval.human.store import Store

HERE = Path(__file__).resolve().parent
SESSION_COOKIE = "creval_session"
ADMIN_COOKIE = "creval_admin"

MESSAGES = {
    "saved": "Thank you, your answer was saved.",
    "dup": "That answer had already been saved (it was sent twice); nothing was duplicated.",
    "stale": "That page had expired and others completed it in the meantime, so your answer for it was not "
             "counted. Here is a new page.",
    "draft": "Draft saved.",
    "gone": "That page is no longer yours to answer.",
}

SCALES = {
    "fluency": designs.FLUENCY_SCALE,
    "coherence": designs.COHERENCE_SCALE,
    "gab": designs.GAB_SCALE,
    "rating": designs.RATING_SCALE,
}

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _music_preview(notation: str) -> str:
    """Piano-roll SVG of a music notation string (see :mod:`creval.music.notation`); escaped, no scripts."""
    from creval.music.notation import preview_svg

    return preview_svg(notation or "")


def _music_upload(filename: str, data: bytes) -> str:
    """An uploaded MIDI/MusicXML file → the notes notation (InputError when it cannot be read)."""
    import tempfile

    from creval.errors import InputError
    from creval.music.io import MUSIC_SUFFIXES, read_piece
    from creval.music.notation import piece_to_notes

    suffix = Path(filename).suffix.lower()
    if suffix not in MUSIC_SUFFIXES:
        raise InputError(f"unsupported file type {suffix or '(none)'}; upload a MIDI or MusicXML file")
    if len(data) > 5_000_000:
        raise InputError("the file is larger than 5 MB")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            return piece_to_notes(read_piece(path))
        except InputError as exc:
            raise InputError(f"{filename}: {exc.problem}") from None


class _SecurityHeaders:
    """Pure ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP response (cheaper than
    ``@app.middleware("http")``, which wraps each response in a stream)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for k, v in SECURITY_HEADERS.items():
                    if k not in headers:
                        headers[k] = v
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(db_url: str | None = None, store: Store | None = None, secure_cookies: bool = False) -> FastAPI:
    """Build the app for a database URL (or an open :class:`Store`)."""
    store = store or Store(db_url or "sqlite:///creval-studies.db")
    secret = store.secret()
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals["scales"] = SCALES
    templates.env.globals["music_preview"] = _music_preview  # post-editing of music: piano-roll SVG
    app = FastAPI(title="creval studies", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")

    app.add_middleware(_SecurityHeaders)

    def csrf_for(session: str) -> str:
        return hmac.new(secret, b"csrf:" + session.encode(), hashlib.sha256).hexdigest()[:40]

    def csrf_ok(session: str, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(csrf_for(session), str(value))

    def page(request: Request, name: str, ctx: dict[str, Any], status: int = 200) -> HTMLResponse:
        return templates.TemplateResponse(request, name, ctx, status_code=status)

    def message_page(request: Request, title: str, text: str, status: int) -> HTMLResponse:
        return page(request, "message.html", {"title": title, "text": text, "study": None}, status)

    def current(request: Request) -> tuple[dict | None, str | None]:
        tok = request.cookies.get(SESSION_COOKIE)
        if not tok:
            return None, None
        a = store.annotator_by_token(tok)
        return a, (tok if a else None)

    def no_session(request: Request) -> HTMLResponse:
        return message_page(request, "Please use your invite link",
                            "This page needs the personal invite link you were sent.", 401)

    def study_ctx(a: dict) -> dict:
        st = store.study(a["study_id"])
        cfg = StudyConfig.model_validate_json(st["config"])
        return {"study": {"title": st["title"], "type": st["type"]}, "config": cfg, "st": st}

    def redirect(url: str) -> RedirectResponse:
        return RedirectResponse(url, status_code=303)

    # ------------------------------------------------------------------ annotators

    @app.get("/", response_class=HTMLResponse)
    def home(request: Request):
        a, _ = current(request)
        if a is None:
            return message_page(request, "creval studies",
                                "Open the personal invite link you were sent to take part in a study.", 200)
        return redirect("/task")

    @app.get("/join/{token}")
    def join(token: str, request: Request):
        a = store.annotator_by_token(token)
        if a is None:
            return message_page(request, "Unknown invite link", "This invite link is not valid.", 404)
        resp = redirect("/guidelines" if a["guidelines_at"] is None else "/task")
        resp.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="lax", secure=secure_cookies,
                        max_age=90 * 24 * 3600)
        return resp

    @app.get("/guidelines", response_class=HTMLResponse)
    def guidelines(request: Request):
        a, sess = current(request)
        if a is None:
            return no_session(request)
        ctx = study_ctx(a)
        cfg: StudyConfig = ctx["config"]
        examples = cfg.guidelines.examples if a["condition"] == "examples" else []
        return page(request, "guidelines.html", {**ctx, "guidelines": cfg.guidelines.text, "examples": examples,
                                                 "csrf": csrf_for(sess), "started": a["guidelines_at"] is not None})

    @app.post("/guidelines")
    async def guidelines_post(request: Request):
        a, sess = current(request)
        if a is None:
            return no_session(request)
        form = await request.form()
        if not csrf_ok(sess, form.get("csrf")):
            return message_page(request, "Form expired", "Please reload the page and try again.", 403)
        await run_in_threadpool(store.mark_guidelines, a["id"])
        return redirect("/task")

    def render_task(request: Request, a: dict, sess: str, asg: dict | None, msg: str | None = None,
                    error: str | None = None, prev: dict | None = None, status: int = 200) -> HTMLResponse:
        ctx = study_ctx(a)
        prog = store.annotator_progress(a)
        if asg is None:
            return page(request, "done.html", {**ctx, "progress": prog, "message": msg}, status)
        draft = asg.get("draft")
        return page(request, "task.html", {
            **ctx, "progress": prog, "message": msg, "error": error, "prev": prev or {},
            "d": asg["display"], "assignment": asg["id"], "csrf": csrf_for(sess), "draft": draft,
            "lease_expires": asg["lease_expires"]}, status)

    @app.get("/task", response_class=HTMLResponse)
    def task(request: Request, m: str | None = None):
        a, sess = current(request)
        if a is None:
            return no_session(request)
        if a["guidelines_at"] is None:
            return redirect("/guidelines")
        asg = store.claim(a)
        return render_task(request, a, sess, asg, MESSAGES.get(m or ""))

    @app.post("/task/{assignment_id}")
    async def submit(assignment_id: int, request: Request):
        a, sess = current(request)
        if a is None:
            return no_session(request)
        form = await request.form()
        raw = {k: v for k, v in form.items() if k != "csrf" and isinstance(v, str)}
        if not csrf_ok(sess, form.get("csrf")):
            return message_page(request, "Form expired", "Please reload the page and try again.", 403)
        asg = await run_in_threadpool(store.assignment, a["id"], assignment_id)
        if asg is None:
            await run_in_threadpool(store.submit, a, assignment_id, None, raw)  # logged as forbidden
            return message_page(request, "Not your page", "This page belongs to another annotator.", 403)
        upload = form.get("edited_file")
        if asg["display"].get("kind") == "music" and getattr(upload, "filename", None):
            from creval.errors import InputError

            try:  # post-editing music: an uploaded edited file replaces the text
                raw["edited"] = await run_in_threadpool(_music_upload, upload.filename, await upload.read())
            except InputError as exc:
                return render_task(request, a, sess, asg, error=f"The uploaded file could not be read: "
                                   f"{exc.problem}", prev=raw, status=422)
        try:
            answer = designs.parse_answer(asg_type(a), asg["display"], raw)
        except designs.AnswerError as exc:
            if asg["status"] == "done":  # a resent old form: the saved answer stands
                return redirect("/task?m=dup")
            await run_in_threadpool(store.submit, a, assignment_id, None, raw, str(exc))
            return render_task(request, a, sess, asg, error=str(exc), prev=raw, status=422)
        outcome = await run_in_threadpool(store.submit, a, assignment_id, answer, raw)
        return redirect({"accepted": "/task?m=saved", "duplicate": "/task?m=dup",
                         "stale": "/task?m=stale"}.get(outcome, "/task?m=gone"))

    def asg_type(a: dict) -> str:
        return store.study(a["study_id"])["type"]

    @app.post("/task/{assignment_id}/draft")
    async def draft(assignment_id: int, request: Request):
        a, sess = current(request)
        if a is None:
            return no_session(request)
        form = await request.form()
        if not csrf_ok(sess, form.get("csrf")):
            return message_page(request, "Form expired", "Please reload the page and try again.", 403)
        text = str(form.get("edited") or "").replace("\r\n", "\n")[:100_000]
        ok = await run_in_threadpool(store.save_draft, a, assignment_id, text)
        if request.headers.get("x-requested-with") == "fetch":
            return JSONResponse({"saved": ok}, status_code=200 if ok else 409)
        return redirect("/task?m=draft" if ok else "/task?m=gone")

    # ------------------------------------------------------------------ admin

    def admin_study(request: Request, name: str) -> dict | None:
        tok = None
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            tok = auth[7:].strip()
        tok = tok or request.cookies.get(f"{ADMIN_COOKIE}_{name}")
        if not tok:
            return None
        st = store.study_by_admin_token(tok)
        return st if st and st["name"] == name else None

    def admin_denied(request: Request, name: str):
        if "text/html" in request.headers.get("accept", ""):
            return redirect(f"/admin/{quote(name)}/login")
        return PlainTextResponse("admin token required", status_code=401)

    @app.get("/admin/{name}/login", response_class=HTMLResponse)
    def admin_login(name: str, request: Request, token: str | None = None):
        if token:
            st = store.study_by_admin_token(token)
            if st and st["name"] == name:
                resp = redirect(f"/admin/{quote(name)}")
                resp.set_cookie(f"{ADMIN_COOKIE}_{name}", token, httponly=True, samesite="strict",
                                secure=secure_cookies, path="/admin")
                return resp
            return page(request, "admin_login.html", {"name": name, "error": "wrong token", "study": None}, 401)
        return page(request, "admin_login.html", {"name": name, "error": None, "study": None})

    @app.post("/admin/{name}/login")
    async def admin_login_post(name: str, request: Request):
        form = await request.form()
        return admin_login(name, request, str(form.get("token") or "") or "-")

    @app.get("/admin/{name}", response_class=HTMLResponse)
    def admin(name: str, request: Request):
        st = admin_study(request, name)
        if st is None:
            return admin_denied(request, name)
        prog = store.progress(name)
        from creval.human.export import criteria_of

        return page(request, "admin.html", {"st": st, "p": prog, "criteria": criteria_of(st["type"]),
                                            "study": {"title": st["title"], "type": st["type"]}})

    @app.get("/admin/{name}/results", response_class=HTMLResponse)
    def results(name: str, request: Request):
        st = admin_study(request, name)
        if st is None:
            return admin_denied(request, name)
        from creval.human.summary import study_results

        res = study_results(store, name)
        return page(request, "results.html", {"st": st, "r": res,
                                              "study": {"title": st["title"], "type": st["type"]}})

    @app.get("/admin/{name}/export/{what:path}")
    def export(name: str, what: str, request: Request):
        st = admin_study(request, name)
        if st is None:
            return admin_denied(request, name)
        from creval.human import export as ex

        if what == "judgements.csv":
            return Response(ex.to_csv(ex.tidy_rows(store, name)), media_type="text/csv; charset=utf-8",
                            headers={"Content-Disposition": f'attachment; filename="{name}-judgements.csv"'})
        if what == "judgements.jsonl":
            return Response(ex.to_jsonl(ex.tidy_rows(store, name)), media_type="application/x-ndjson")
        if what == "events.jsonl":
            return Response(ex.to_jsonl(ex.event_rows(store, name)), media_type="application/x-ndjson")
        if what == "design.json":
            return Response(json.dumps(ex.design(store, name), indent=2, ensure_ascii=False),
                            media_type="application/json")
        if what.startswith("matrix/") and what.endswith(".csv"):
            crit = what[len("matrix/"):-4]
            if crit not in ex.criteria_of(st["type"]):
                return PlainTextResponse(f"no criterion {crit!r} in this study", status_code=404)
            return Response(ex.matrix_csv(ex.tidy_rows(store, name), crit), media_type="text/csv; charset=utf-8")
        return PlainTextResponse("unknown export", status_code=404)

    @app.get("/healthz")
    def healthz():
        return {"ok": True}

    return app


def app_from_env() -> FastAPI:  # pragma: no cover - used by `uvicorn --factory`
    import os

    return create_app(os.environ.get("CREVAL_DB", "sqlite:///creval-studies.db"))
