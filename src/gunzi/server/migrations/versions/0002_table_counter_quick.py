"""Tables remember whether the 记牌器 is allowed and whether quick play made them.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("counter", sa.Boolean, nullable=False,
                                   server_default=sa.true()))
        batch.add_column(sa.Column("quick", sa.Boolean, nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("quick")
        batch.drop_column("counter")
