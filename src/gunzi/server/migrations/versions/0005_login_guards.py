"""Login throttling shared across processes: per-account delays and per-address windows.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_guards",
        sa.Column("key", sa.String(80), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_at", sa.Float, nullable=False),
        sa.Column("next_at", sa.Float, nullable=False),
        sa.Column("claim", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("login_guards")
