"""Ladder results say which seats counted for their players (own decisions, docs/ladder.md).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

Rows written before have ``counted`` null: every seat counted, as the ladder did then.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ladder_results") as batch:
        batch.add_column(sa.Column("counted", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ladder_results") as batch:
        batch.drop_column("counted")
