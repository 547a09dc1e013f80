"""A fencing token per table: several hall processes share the database (docs/deploy.md).

The process that takes a table over bumps ``fence``; every write of a play checks it in the
same transaction, so a process that lost the table can never commit to it again.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("fence", sa.BigInteger, nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("fence")
