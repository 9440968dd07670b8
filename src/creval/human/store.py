"""The study database: one URL, SQLite by default, PostgreSQL the same way.

Concurrency rules (what makes "exactly k annotations per item" hold under load):

- Every write (claim, submit, draft, release) runs in one transaction that first takes the study's write lock:
  ``BEGIN IMMEDIATE`` on SQLite (the database write lock, taken before reading, so two claims never see the
  same free slot), ``SELECT ... FOR UPDATE`` on the study row on PostgreSQL.
- SQLite runs in WAL mode with a busy timeout, so readers never block the writer and writers queue instead of
  failing.
- A task has room for a new claim when ``done_count + active unexpired leases < k``. A submit is accepted when
  the annotator's lease is still valid, or, for an expired lease, when the task still has room; otherwise it is
  answered "stale" (kept in the event log only). An accepted submit flips the assignment to ``done`` and bumps
  ``done_count`` in the same transaction; a repeated submit finds ``done`` and is answered "duplicate" (no new
  row, no error). ``UNIQUE(task_id, annotator_id)`` makes a second response by the same annotator impossible.
- Every raw submission (accepted, duplicate, stale or invalid) is appended to the ``event`` table.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, and_, create_engine, event, func, insert, select, text, update
from sqlalchemy.engine import Engine

from creval.errors import InputError
from creval.human import models as m
from creval.human.config import StudyConfig
from creval.human.designs import TaskSpec, assign_pages, page_order

DEFAULT_DB = "sqlite:///creval-studies.db"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def hash_token(token: str) -> str:
    """SHA-256 hex of a token (invite and admin tokens are 256-bit random, so no slow hash is needed)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def make_engine(url: str) -> Engine:
    """Create the engine for ``url`` with the SQLite settings (WAL, busy timeout, immediate write locks)."""
    if url.startswith("sqlite"):
        if url in ("sqlite://", "sqlite:///:memory:"):
            raise InputError("an in-memory SQLite database cannot be shared by the server: use a file URL, "
                             "e.g. sqlite:///study.db")
        engine = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False},
                               pool_size=20, max_overflow=60, pool_timeout=120)

        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn, _record):  # pragma: no cover - trivial
            dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=60000")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn):
            if conn.get_execution_options().get("creval_write"):
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                conn.exec_driver_sql("BEGIN")

        return engine
    try:
        return create_engine(url, pool_size=20, max_overflow=60, pool_timeout=120, pool_pre_ping=True)
    except Exception as exc:  # bad URL / missing driver
        raise InputError(f"cannot use database URL {url!r}: {exc}") from None


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (idempotent)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            # serialize concurrent migrations of the same database
            conn.execute(text("SELECT pg_advisory_lock(781223)"))
            conn.commit()
        try:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
            conn.commit()
        finally:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_unlock(781223)"))
                conn.commit()


@dataclass
class Created:
    study_id: int
    name: str
    admin_token: str
    invites: dict[str, str]  # annotator name -> invite token


def _loads(s: str | None) -> Any:
    return json.loads(s) if s else None


class Store:
    """Access to one study database. ``clock`` is injectable so tests can expire leases without waiting."""

    def __init__(self, url: str = DEFAULT_DB, clock: Callable[[], float] = time.time, auto_migrate: bool = True):
        self.url = url
        self.engine = make_engine(url)
        self.clock = clock
        self.is_pg = self.engine.dialect.name == "postgresql"
        self._studies: dict[str | int, dict] = {}
        self._write_lock = threading.Lock() if self.engine.dialect.name == "sqlite" else None
        if auto_migrate:
            migrate(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ transactions

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    @contextmanager
    def write(self, study_id: int | None = None) -> Iterator[Connection]:
        if self._write_lock is not None:
            # SQLite: queue writers of this process on a lock rather than in SQLite's busy handler, whose
            # sleeps (up to 100 ms each) would dominate latency under load; other processes still wait in
            # the busy timeout.
            with self._write_lock:
                yield from self._write_tx(study_id)
        else:
            yield from self._write_tx(study_id)

    def _write_tx(self, study_id: int | None) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            conn.execution_options(creval_write=True)
            with conn.begin():
                if self.is_pg and study_id is not None:
                    conn.execute(select(m.study.c.id).where(m.study.c.id == study_id).with_for_update())
                yield conn

    def _log(self, conn: Connection, study_id: int, kind: str, payload: Any, annotator_id: int | None = None,
             assignment_id: int | None = None) -> None:
        conn.execute(insert(m.event).values(study_id=study_id, annotator_id=annotator_id,
                                            assignment_id=assignment_id, kind=kind,
                                            payload=json.dumps(payload, ensure_ascii=False), at=self.clock()))

    # ------------------------------------------------------------------ secrets

    def secret(self) -> bytes:
        """The server secret (signs CSRF tokens); created once and kept in the database."""
        with self.read() as conn:
            v = conn.execute(select(m.meta.c.value).where(m.meta.c.key == "secret")).scalar()
        if v is None:
            from sqlalchemy.exc import IntegrityError

            try:
                with self.write() as conn:
                    v = conn.execute(select(m.meta.c.value).where(m.meta.c.key == "secret")).scalar()
                    if v is None:
                        v = secrets.token_hex(32)
                        conn.execute(insert(m.meta).values(key="secret", value=v))
            except IntegrityError:  # another server process created it at the same moment
                with self.read() as conn:
                    v = conn.execute(select(m.meta.c.value).where(m.meta.c.key == "secret")).scalar_one()
        return bytes.fromhex(v)

    # ------------------------------------------------------------------ studies

    def create_study(self, config: StudyConfig, tasks: list[TaskSpec]) -> Created:
        """Store a validated study with its pages; make the admin token and one invite per annotator."""
        with self.read() as conn:
            if conn.execute(select(m.study.c.id).where(m.study.c.name == config.name)).first():
                raise InputError(f"a study named {config.name!r} already exists in this database "
                                 "(choose another name or another --db)")
        names = config.annotator_names
        admin = new_token()
        invites = {n: new_token() for n in names}
        now = self.clock()
        with self.write() as conn:
            sid = conn.execute(insert(m.study).values(
                name=config.name, type=config.type, title=config.title or config.name,
                config=config.model_dump_json(), k=config.k_effective, lease_seconds=config.lease_minutes * 60,
                admin_token_hash=hash_token(admin), has_plan=config.type == "side_by_side", created_at=now,
            ).returning(m.study.c.id)).scalar_one()
            ann_ids = self._insert_annotators(conn, sid, config, invites, now, start=0)
            conn.execute(insert(m.task), [
                {"study_id": sid, "key": t.key, "position": i, "display": json.dumps(t.display, ensure_ascii=False),
                 "hidden": json.dumps(t.hidden, ensure_ascii=False), "units": json.dumps(t.units),
                 "done_count": 0}
                for i, t in enumerate(tasks)])
            if config.type == "side_by_side":
                task_ids = dict(conn.execute(select(m.task.c.position, m.task.c.id)
                                             .where(m.task.c.study_id == sid)).all())
                self._plan(conn, config, task_ids, names, ann_ids)
            self._log(conn, sid, "create", {"name": config.name, "tasks": len(tasks), "annotators": names})
        return Created(sid, config.name, admin, invites)

    def _insert_annotators(self, conn, sid, config: StudyConfig, invites: dict[str, str], now: float,
                           start: int) -> dict[str, int]:
        ids = {}
        cond = config.guidelines.examples_condition
        for i, (name, tok) in enumerate(invites.items(), start):
            condition = "no_examples" if cond == "none" or (cond == "split" and i % 2 == 1) else "examples"
            ids[name] = conn.execute(insert(m.annotator).values(
                study_id=sid, name=name, token_hash=hash_token(tok), condition=condition, created_at=now,
            ).returning(m.annotator.c.id)).scalar_one()
        return ids

    def _plan(self, conn, config: StudyConfig, task_ids: dict[int, int], names: list[str],
              ann_ids: dict[str, int]) -> None:
        n_pages = len(task_ids)
        pages = assign_pages(n_pages, names, config.k_effective, seed=config.seed)
        by_ann: dict[str, list[int]] = {n: [] for n in names}
        for p, who in pages.items():
            for n in who:
                by_ann[n].append(p)
        rows = []
        for idx, n in enumerate(names):
            mine = by_ann[n]
            order = page_order(len(mine), idx)
            for rank, j in enumerate(order):
                rows.append({"task_id": task_ids[mine[j]], "annotator_id": ann_ids[n], "rank": rank})
        if rows:
            conn.execute(insert(m.plan), rows)

    def add_annotators(self, study_name: str, names: list[str]) -> dict[str, str]:
        """Add invite links to an open-pool study (designed studies fix their assessors at creation)."""
        st = self.study(study_name)
        if st["has_plan"]:
            raise InputError("this study assigns pages to assessors by design; its assessors are fixed")
        config = StudyConfig.model_validate_json(st["config"])
        invites = {n: new_token() for n in names}
        with self.write(st["id"]) as conn:
            existing = set(conn.execute(select(m.annotator.c.name).where(m.annotator.c.study_id == st["id"]))
                           .scalars())
            clash = sorted(existing & set(names))
            if clash:
                raise InputError(f"annotator name(s) already used: {', '.join(clash)}")
            count = len(existing)
            self._insert_annotators(conn, st["id"], config, invites, self.clock(), start=count)
        return invites

    def study(self, name_or_id: str | int) -> dict:
        """A study row by name or id (rows never change after creation, so they are cached)."""
        hit = self._studies.get(name_or_id)
        if hit is not None:
            return dict(hit)
        col = m.study.c.id if isinstance(name_or_id, int) else m.study.c.name
        with self.read() as conn:
            row = conn.execute(select(m.study).where(col == name_or_id)).mappings().first()
        if row is None:
            raise InputError(f"no study {name_or_id!r} in this database")
        row = dict(row)
        self._studies[row["id"]] = self._studies[row["name"]] = row
        return dict(row)

    def studies(self) -> list[dict]:
        with self.read() as conn:
            return [dict(r) for r in conn.execute(select(m.study).order_by(m.study.c.id)).mappings()]

    def study_by_admin_token(self, token: str) -> dict | None:
        with self.read() as conn:
            row = conn.execute(select(m.study).where(m.study.c.admin_token_hash == hash_token(token))).mappings()\
                .first()
        return dict(row) if row else None

    def annotator_by_token(self, token: str) -> dict | None:
        with self.read() as conn:
            row = conn.execute(select(m.annotator).where(m.annotator.c.token_hash == hash_token(token)))\
                .mappings().first()
        return dict(row) if row else None

    def annotator(self, annotator_id: int) -> dict | None:
        with self.read() as conn:
            row = conn.execute(select(m.annotator).where(m.annotator.c.id == annotator_id)).mappings().first()
        return dict(row) if row else None

    def mark_guidelines(self, annotator_id: int) -> None:
        a = self.annotator(annotator_id)
        if a is None or a["guidelines_at"] is not None:
            return
        with self.write(a["study_id"]) as conn:
            conn.execute(update(m.annotator).where(m.annotator.c.id == annotator_id)
                         .where(m.annotator.c.guidelines_at.is_(None)).values(guidelines_at=self.clock()))
            self._log(conn, a["study_id"], "guidelines", {}, annotator_id)

    # ------------------------------------------------------------------ claiming

    def _room(self, conn, task_id: int, k: int, now: float, exclude: int | None = None) -> bool:
        done = conn.execute(select(m.task.c.done_count).where(m.task.c.id == task_id)).scalar_one()
        q = select(func.count()).select_from(m.assignment).where(
            m.assignment.c.task_id == task_id, m.assignment.c.status == "active", m.assignment.c.lease_expires > now)
        if exclude is not None:
            q = q.where(m.assignment.c.id != exclude)
        return done + conn.execute(q).scalar_one() < k

    def _annotator(self, who: int | dict) -> dict | None:
        """An annotator row: ``who`` is its id or the row itself (the web app has it already)."""
        return who if isinstance(who, dict) else self.annotator(who)

    def claim(self, annotator_id: int | dict) -> dict | None:
        """The annotator's current page: their unexpired claim, else a new claim; None when nothing is left."""
        a = self._annotator(annotator_id)
        if a is None:
            return None
        annotator_id = a["id"]
        st = self.study(a["study_id"])
        k, lease = st["k"], st["lease_seconds"]
        with self.write(st["id"]) as conn:
            now = self.clock()
            mine = conn.execute(select(m.assignment).where(
                m.assignment.c.annotator_id == annotator_id, m.assignment.c.status == "active")
                .order_by(m.assignment.c.claimed_at, m.assignment.c.id)).mappings().all()
            for asg in mine:
                if asg["lease_expires"] > now or self._room(conn, asg["task_id"], k, now, exclude=asg["id"]):
                    if asg["lease_expires"] <= now:
                        conn.execute(update(m.assignment).where(m.assignment.c.id == asg["id"])
                                     .values(lease_expires=now + lease))
                        self._log(conn, st["id"], "renew", {"task_id": asg["task_id"]}, annotator_id, asg["id"])
                    return self._assignment_view(conn, asg["id"])
                conn.execute(update(m.assignment).where(m.assignment.c.id == asg["id"]).values(status="released"))
                self._log(conn, st["id"], "release", {"task_id": asg["task_id"], "reason": "lease expired"},
                          annotator_id, asg["id"])
            t, a_ = m.task, m.assignment
            active_now = (select(func.count()).select_from(a_)
                          .where(a_.c.task_id == t.c.id, a_.c.status == "active", a_.c.lease_expires > now)
                          .scalar_subquery())
            mine_exists = (select(a_.c.id).where(a_.c.task_id == t.c.id, a_.c.annotator_id == annotator_id,
                                                 a_.c.status.in_(("active", "done"))).exists())
            q = select(t.c.id).where(t.c.study_id == st["id"], ~mine_exists, t.c.done_count + active_now < k)
            if st["has_plan"]:
                q = q.join(m.plan, and_(m.plan.c.task_id == t.c.id, m.plan.c.annotator_id == annotator_id))\
                    .order_by(m.plan.c.rank)
            else:
                # file order (task ids are assigned in file order): the scan stops at the first page with
                # room, so a claim costs O(pages this annotator already did), not O(pages in the study)
                q = q.order_by(t.c.id)
            task_id = conn.execute(q.limit(1)).scalar()
            if task_id is None:
                return None
            old = conn.execute(select(a_.c.id).where(a_.c.task_id == task_id, a_.c.annotator_id == annotator_id))\
                .scalar()
            if old is not None:  # a claim this annotator lost earlier: take it up again
                conn.execute(update(a_).where(a_.c.id == old).values(
                    status="active", claimed_at=now, lease_expires=now + lease, draft=None))
                asg_id = old
            else:
                asg_id = conn.execute(insert(a_).values(
                    task_id=task_id, annotator_id=annotator_id, status="active", claimed_at=now,
                    lease_expires=now + lease).returning(a_.c.id)).scalar_one()
            self._log(conn, st["id"], "claim", {"task_id": task_id}, annotator_id, asg_id)
            return self._assignment_view(conn, asg_id)

    def _assignment_view(self, conn, asg_id: int) -> dict:
        row = conn.execute(select(m.assignment, m.task.c.key, m.task.c.display, m.task.c.hidden,
                                  m.task.c.study_id)
                           .join(m.task, m.task.c.id == m.assignment.c.task_id)
                           .where(m.assignment.c.id == asg_id)).mappings().one()
        d = dict(row)
        d["display"] = _loads(d["display"])
        d["hidden"] = _loads(d["hidden"])
        d["answer"] = _loads(d["answer"])
        return d

    def assignment(self, annotator_id: int, assignment_id: int) -> dict | None:
        """One of the annotator's own assignments (None for anyone else's: annotators see only their own)."""
        with self.read() as conn:
            owner = conn.execute(select(m.assignment.c.annotator_id).where(m.assignment.c.id == assignment_id))\
                .scalar()
            if owner is None or owner != annotator_id:
                return None
            return self._assignment_view(conn, assignment_id)

    # ------------------------------------------------------------------ submitting

    def submit(self, annotator_id: int | dict, assignment_id: int, answer: dict | None, raw: dict,
               error: str | None = None) -> str:
        """Record a submission. Returns ``accepted``, ``duplicate``, ``stale``, ``invalid`` or ``forbidden``.

        ``answer`` is the validated answer (None with ``error`` set when validation failed: only logged).
        """
        a = self._annotator(annotator_id)
        if a is None:
            return "forbidden"
        annotator_id = a["id"]
        st = self.study(a["study_id"])
        with self.write(st["id"]) as conn:
            now = self.clock()
            asg = conn.execute(select(m.assignment).where(m.assignment.c.id == assignment_id)).mappings().first()
            if asg is None or asg["annotator_id"] != annotator_id:
                self._log(conn, st["id"], "submit_forbidden", raw, annotator_id, assignment_id)
                return "forbidden"
            if error is not None:
                self._log(conn, st["id"], "submit_invalid", {"form": raw, "error": error}, annotator_id,
                          assignment_id)
                return "invalid"
            if asg["status"] == "done":
                self._log(conn, st["id"], "submit_duplicate", raw, annotator_id, assignment_id)
                return "duplicate"
            ok = asg["status"] == "active" and asg["lease_expires"] > now
            if not ok:
                ok = self._room(conn, asg["task_id"], st["k"], now, exclude=asg["id"])
            if not ok:
                conn.execute(update(m.assignment).where(m.assignment.c.id == assignment_id)
                             .values(status="released"))
                self._log(conn, st["id"], "submit_stale", raw, annotator_id, assignment_id)
                return "stale"
            conn.execute(update(m.assignment).where(m.assignment.c.id == assignment_id).values(
                status="done", submitted_at=now, seconds=max(0.0, now - asg["claimed_at"]),
                answer=json.dumps(answer, ensure_ascii=False)))
            conn.execute(update(m.task).where(m.task.c.id == asg["task_id"])
                         .values(done_count=m.task.c.done_count + 1))
            self._log(conn, st["id"], "submit", raw, annotator_id, assignment_id)
            return "accepted"

    def save_draft(self, annotator_id: int | dict, assignment_id: int, draft: str) -> bool:
        a = self._annotator(annotator_id)
        if a is None:
            return False
        annotator_id = a["id"]
        with self.write(a["study_id"]) as conn:
            res = conn.execute(update(m.assignment).where(
                m.assignment.c.id == assignment_id, m.assignment.c.annotator_id == annotator_id,
                m.assignment.c.status == "active").values(draft=draft))
            self._log(conn, a["study_id"], "draft", {"length": len(draft)}, annotator_id, assignment_id)
            return res.rowcount == 1

    # ------------------------------------------------------------------ progress and exports

    def annotator_progress(self, annotator_id: int | dict) -> dict:
        a = self._annotator(annotator_id)
        annotator_id = a["id"]
        st = self.study(a["study_id"])
        with self.read() as conn:
            done = conn.execute(select(func.count()).select_from(m.assignment).where(
                m.assignment.c.annotator_id == annotator_id, m.assignment.c.status == "done")).scalar_one()
            if st["has_plan"]:
                total = conn.execute(select(func.count()).select_from(m.plan)
                                     .where(m.plan.c.annotator_id == annotator_id)).scalar_one()
            else:
                # pages still open that this annotator has not done (others' current leases ignored)
                left = conn.execute(text(
                    "SELECT count(*) FROM task t WHERE t.study_id = :s AND t.done_count < :k AND NOT EXISTS "
                    "(SELECT 1 FROM assignment y WHERE y.task_id = t.id AND y.annotator_id = :a "
                    "AND y.status = 'done')"), {"s": st["id"], "a": annotator_id, "k": st["k"]}).scalar_one()
                total = done + left
        return {"done": done, "total": max(total, done)}

    def progress(self, study_name: str | int) -> dict:
        """Study progress: pages and judgements done, per-annotator counts and time per page."""
        st = self.study(study_name)
        now = self.clock()
        with self.read() as conn:
            n_tasks = conn.execute(select(func.count()).select_from(m.task)
                                   .where(m.task.c.study_id == st["id"])).scalar_one()
            complete = conn.execute(select(func.count()).select_from(m.task).where(
                m.task.c.study_id == st["id"], m.task.c.done_count >= st["k"])).scalar_one()
            responses = conn.execute(select(func.coalesce(func.sum(m.task.c.done_count), 0))
                                     .where(m.task.c.study_id == st["id"])).scalar_one()
            leased = conn.execute(select(func.count()).select_from(m.assignment)
                                  .join(m.task, m.task.c.id == m.assignment.c.task_id)
                                  .where(m.task.c.study_id == st["id"], m.assignment.c.status == "active",
                                         m.assignment.c.lease_expires > now)).scalar_one()
            a_, an = m.assignment, m.annotator
            per = conn.execute(
                select(an.c.name, an.c.condition, an.c.guidelines_at,
                       func.count(a_.c.id).filter(a_.c.status == "done").label("done"),
                       func.avg(a_.c.seconds).filter(a_.c.status == "done").label("mean_seconds"),
                       func.max(a_.c.submitted_at).label("last_submit"))
                .select_from(an).outerjoin(a_, a_.c.annotator_id == an.c.id)
                .where(an.c.study_id == st["id"]).group_by(an.c.id, an.c.name, an.c.condition, an.c.guidelines_at)
                .order_by(an.c.name)).mappings().all()
            events = conn.execute(select(func.count()).select_from(m.event)
                                  .where(m.event.c.study_id == st["id"])).scalar_one()
        return {"study": st["name"], "type": st["type"], "k": st["k"], "tasks": n_tasks, "complete": complete,
                "responses": int(responses), "needed": n_tasks * st["k"], "leased": leased, "events": events,
                "annotators": [dict(r) for r in per]}

    def responses(self, study_name: str | int) -> list[dict]:
        """Every accepted response (one per page and annotator) with its page."""
        st = self.study(study_name)
        with self.read() as conn:
            rows = conn.execute(
                select(m.assignment.c.id, m.assignment.c.answer, m.assignment.c.seconds,
                       m.assignment.c.submitted_at, m.task.c.key, m.task.c.position, m.task.c.display,
                       m.task.c.hidden, m.annotator.c.name.label("annotator"), m.annotator.c.condition)
                .join(m.task, m.task.c.id == m.assignment.c.task_id)
                .join(m.annotator, m.annotator.c.id == m.assignment.c.annotator_id)
                .where(m.task.c.study_id == st["id"], m.assignment.c.status == "done")
                .order_by(m.task.c.position, m.annotator.c.name)).mappings().all()
        out = []
        for r in rows:
            d = dict(r)
            for key in ("answer", "display", "hidden"):
                d[key] = _loads(d[key])
            out.append(d)
        return out

    def tasks(self, study_name: str | int) -> list[dict]:
        st = self.study(study_name)
        with self.read() as conn:
            rows = conn.execute(select(m.task).where(m.task.c.study_id == st["id"]).order_by(m.task.c.position))\
                .mappings().all()
        out = []
        for r in rows:
            d = dict(r)
            for key in ("display", "hidden", "units"):
                d[key] = _loads(d[key])
            out.append(d)
        return out

    def plan_rows(self, study_name: str | int) -> list[dict]:
        st = self.study(study_name)
        with self.read() as conn:
            rows = conn.execute(select(m.task.c.key, m.annotator.c.name, m.plan.c.rank)
                                .join(m.task, m.task.c.id == m.plan.c.task_id)
                                .join(m.annotator, m.annotator.c.id == m.plan.c.annotator_id)
                                .where(m.task.c.study_id == st["id"])
                                .order_by(m.annotator.c.name, m.plan.c.rank)).mappings().all()
        return [dict(r) for r in rows]

    def events(self, study_name: str | int) -> list[dict]:
        st = self.study(study_name)
        with self.read() as conn:
            rows = conn.execute(select(m.event).where(m.event.c.study_id == st["id"]).order_by(m.event.c.id))\
                .mappings().all()
        return [dict(r) for r in rows]
