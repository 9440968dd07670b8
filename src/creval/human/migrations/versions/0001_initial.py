"""Initial schema: study, annotator, task, plan, assignment, event, meta.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "study",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("k", sa.Integer, nullable=False),
        sa.Column("lease_seconds", sa.Float, nullable=False),
        sa.Column("admin_token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("has_plan", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "annotator",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("study_id", sa.Integer, sa.ForeignKey("study.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("condition", sa.String(32), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("guidelines_at", sa.Float, nullable=True),
        sa.UniqueConstraint("study_id", "name", name="uq_annotator_study_name"),
    )
    op.create_table(
        "task",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("study_id", sa.Integer, sa.ForeignKey("study.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("display", sa.Text, nullable=False),
        sa.Column("hidden", sa.Text, nullable=False),
        sa.Column("units", sa.Text, nullable=False),
        sa.Column("done_count", sa.Integer, nullable=False),
        sa.UniqueConstraint("study_id", "key", name="uq_task_study_key"),
    )
    op.create_index("ix_task_study_done", "task", ["study_id", "done_count"])
    op.create_table(
        "plan",
        sa.Column("task_id", sa.Integer, sa.ForeignKey("task.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("annotator_id", sa.Integer, sa.ForeignKey("annotator.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("rank", sa.Integer, nullable=False),
    )
    op.create_index("ix_plan_annotator", "plan", ["annotator_id", "rank"])
    op.create_table(
        "assignment",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("task_id", sa.Integer, sa.ForeignKey("task.id", ondelete="CASCADE"), nullable=False),
        sa.Column("annotator_id", sa.Integer, sa.ForeignKey("annotator.id", ondelete="CASCADE"), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("claimed_at", sa.Float, nullable=False),
        sa.Column("lease_expires", sa.Float, nullable=False),
        sa.Column("submitted_at", sa.Float, nullable=True),
        sa.Column("seconds", sa.Float, nullable=True),
        sa.Column("draft", sa.Text, nullable=True),
        sa.Column("answer", sa.Text, nullable=True),
        sa.UniqueConstraint("task_id", "annotator_id", name="uq_assignment_task_annotator"),
    )
    op.create_index("ix_assignment_task_status", "assignment", ["task_id", "status"])
    op.create_index("ix_assignment_annotator_status", "assignment", ["annotator_id", "status"])
    op.create_table(
        "event",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("study_id", sa.Integer, sa.ForeignKey("study.id", ondelete="CASCADE"), nullable=False),
        sa.Column("annotator_id", sa.Integer, nullable=True),
        sa.Column("assignment_id", sa.Integer, nullable=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_event_study", "event", ["study_id", "id"])


def downgrade() -> None:
    for name in ("event", "assignment", "plan", "task", "annotator", "study", "meta"):
        op.drop_table(name)
