"""Database schema of the study server (SQLAlchemy Core tables; Alembic migrations in ``migrations/``).

- ``study``: one row per study (type, validated config JSON, k, lease, hashed admin token).
- ``annotator``: one per invite link; ``token_hash`` is the SHA-256 of the invite token (tokens are 32 random
  bytes, so a fast hash is enough; the token itself is never stored). ``condition`` records the guidelines
  condition (``examples`` / ``no_examples``).
- ``task``: one annotation page; ``display`` (JSON) is all an annotator ever sees, ``hidden`` (JSON) holds the
  system identities and answer keys. ``done_count`` counts accepted responses (never above k).
- ``plan``: for designed studies (side-by-side), which assessor rates which page and in what order.
- ``assignment``: an annotator's claim on a task (unique per task and annotator, so nobody judges a page twice);
  ``status`` is ``active`` (leased until ``lease_expires``), ``done`` (the accepted response is ``answer``) or
  ``released`` (lease lost); ``draft`` holds autosaved post-edits.
- ``event``: append-only log of every raw submission, draft, claim, release and rejection.
- ``meta``: key/value settings (the server secret used to sign CSRF tokens).

Times are UNIX seconds (floats) so SQLite and PostgreSQL behave the same.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

meta = Table(
    "meta", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

study = Table(
    "study", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("type", String(32), nullable=False),
    Column("title", Text, nullable=False),
    Column("config", Text, nullable=False),
    Column("k", Integer, nullable=False),
    Column("lease_seconds", Float, nullable=False),
    Column("admin_token_hash", String(64), nullable=False, unique=True),
    Column("has_plan", Boolean, nullable=False, default=False),
    Column("created_at", Float, nullable=False),
)

annotator = Table(
    "annotator", metadata,
    Column("id", Integer, primary_key=True),
    Column("study_id", Integer, ForeignKey("study.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(64), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("condition", String(32), nullable=False, default="examples"),
    Column("created_at", Float, nullable=False),
    Column("guidelines_at", Float, nullable=True),
    UniqueConstraint("study_id", "name", name="uq_annotator_study_name"),
)

task = Table(
    "task", metadata,
    Column("id", Integer, primary_key=True),
    Column("study_id", Integer, ForeignKey("study.id", ondelete="CASCADE"), nullable=False),
    Column("key", String(200), nullable=False),
    Column("position", Integer, nullable=False),
    Column("display", Text, nullable=False),
    Column("hidden", Text, nullable=False),
    Column("units", Text, nullable=False),
    Column("done_count", Integer, nullable=False, default=0),
    UniqueConstraint("study_id", "key", name="uq_task_study_key"),
    Index("ix_task_study_done", "study_id", "done_count"),
    Index("ix_task_study_order", "study_id", "id"),
)

plan = Table(
    "plan", metadata,
    Column("task_id", Integer, ForeignKey("task.id", ondelete="CASCADE"), primary_key=True),
    Column("annotator_id", Integer, ForeignKey("annotator.id", ondelete="CASCADE"), primary_key=True),
    Column("rank", Integer, nullable=False),
    Index("ix_plan_annotator", "annotator_id", "rank"),
)

assignment = Table(
    "assignment", metadata,
    Column("id", Integer, primary_key=True),
    Column("task_id", Integer, ForeignKey("task.id", ondelete="CASCADE"), nullable=False),
    Column("annotator_id", Integer, ForeignKey("annotator.id", ondelete="CASCADE"), nullable=False),
    Column("status", String(16), nullable=False),
    Column("claimed_at", Float, nullable=False),
    Column("lease_expires", Float, nullable=False),
    Column("submitted_at", Float, nullable=True),
    Column("seconds", Float, nullable=True),
    Column("draft", Text, nullable=True),
    Column("answer", Text, nullable=True),
    UniqueConstraint("task_id", "annotator_id", name="uq_assignment_task_annotator"),
    Index("ix_assignment_task_status", "task_id", "status"),
    Index("ix_assignment_annotator_status", "annotator_id", "status"),
)

event = Table(
    "event", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("study_id", Integer, ForeignKey("study.id", ondelete="CASCADE"), nullable=False),
    Column("annotator_id", Integer, nullable=True),
    Column("assignment_id", Integer, nullable=True),
    Column("kind", String(32), nullable=False),
    Column("payload", Text, nullable=False),
    Column("at", Float, nullable=False),
    Index("ix_event_study", "study_id", "id"),
)
