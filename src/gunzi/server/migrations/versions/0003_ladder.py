"""The ladder: scored results (unique per table and hand), per-player entries, standings.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladder_results",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(24), nullable=False),
        sa.Column("hand_no", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("players", sa.JSON, nullable=False),
        sa.Column("scores", sa.JSON, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("table_id", "hand_no", name="uq_ladder_results_hand"),
    )
    op.create_table(
        "ladder_entries",
        sa.Column("result_id", sa.Integer,
                  sa.ForeignKey("ladder_results.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("player", sa.String(40), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("seats", sa.String(8), nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("total_after", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_ladder_entries_player", "ladder_entries", ["player", "result_id"])
    op.create_table(
        "ladder_players",
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("player", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
                  nullable=True),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("ordinal", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_ladder_players_rank", "ladder_players", ["game", "total"])
    op.create_index("ix_ladder_players_user_id", "ladder_players", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_ladder_players_user_id", table_name="ladder_players")
    op.drop_index("ix_ladder_players_rank", table_name="ladder_players")
    op.drop_table("ladder_players")
    op.drop_index("ix_ladder_entries_player", table_name="ladder_entries")
    op.drop_table("ladder_entries")
    op.drop_table("ladder_results")
