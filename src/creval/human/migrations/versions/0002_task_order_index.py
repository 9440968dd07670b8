"""Index pages by (study, id) so a claim walks pages in file order and stops at the first with room.

With only the (study, done_count) index SQLite sorted every open page on each claim (a temporary B-tree under
the write lock); with (study, id) the scan is in order and ends at the first page that has room. The
(study, done_count) index stays for the progress counts.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_task_study_order", "task", ["study_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_task_study_order", table_name="task")
