"""The ladder's storage: apply a result exactly once, and the queries behind the ladder API.

:func:`apply_result` runs inside the transaction that commits the action which
ended the hand (``db.commit_action``): the result row is inserted with its
unique ``(table_id, hand_no)`` key, and only if that insert happened are the
players' totals and ratings read, updated and written, with one history entry
each. A crash before the commit loses both the action and the result; after it,
both are on disk; a second attempt finds the key and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import ColumnElement, and_, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from gunzi.ladder import rating
from gunzi.ladder.points import GAMES
from gunzi.ladder.result import LadderResult, ref_of_key
from gunzi.ladder.titles import title_for
from gunzi.server.db import LadderEntry, LadderPlayer, LadderResultRow, User, now

HISTORY = 50  # recent entries on a player's page
SERIES = 400  # rating points per game for the chart


def _insert_once(session: Session, res: LadderResult, now: float) -> int | None:
    """Insert the result row; its id, or None if this table's hand is already scored."""
    values = {"game": res.game, "table_id": res.table_id, "hand_no": res.hand_no,
              "rated": res.rated, "players": list(res.players), "scores": list(res.scores),
              "counted": None if res.counted is None else list(res.counted),
              "created_at": now}
    dialect = session.get_bind().dialect.name
    if dialect == "sqlite":
        stmt: Any = sqlite.insert(LadderResultRow).values(**values).on_conflict_do_nothing(
            index_elements=["table_id", "hand_no"])
    elif dialect == "postgresql":
        stmt = postgresql.insert(LadderResultRow).values(**values).on_conflict_do_nothing(
            index_elements=["table_id", "hand_no"])
    else:
        done = session.scalar(select(LadderResultRow.id).where(
            LadderResultRow.table_id == res.table_id, LadderResultRow.hand_no == res.hand_no))
        if done is not None:
            return None
        stmt = insert(LadderResultRow).values(**values)
    rid: int | None = session.execute(stmt.returning(LadderResultRow.id)).scalar_one_or_none()
    return rid


def apply_result(session: Session, res: LadderResult, now: float) -> bool:
    """Record ``res`` and, if rated, move totals and ratings; False if it was already there.

    Only the identities of counted seats (``res.counts``) get points, a rating change and a
    history entry; an uncounted seat still stands in the rating update with its current
    rating, so the others move as against the team that was really there."""
    rid = _insert_once(session, res, now)
    if rid is None:
        return False
    if not res.rated:
        return True
    keys = list(dict.fromkeys(res.players))
    counted = list(dict.fromkeys(p for s, p in enumerate(res.players) if res.counts(s)))
    rows = {p.player: p for p in session.scalars(
        select(LadderPlayer)
        .where(LadderPlayer.game == res.game, LadderPlayer.player.in_(keys))
        .with_for_update())}
    for key in counted:
        if key not in rows:
            user_id = int(key[2:]) if key.startswith("u:") else None
            mu, sigma = rating.START
            rows[key] = LadderPlayer(game=res.game, player=key, user_id=user_id, total=0,
                                     games=0, mu=mu, sigma=sigma,
                                     ordinal=rating.ordinal(mu, sigma), updated_at=now)
            session.add(rows[key])
    current = {k: (rows[k].mu, rows[k].sigma) if k in rows else rating.START for k in keys}
    new = rating.update(res.players, res.team_points(), current, res.teams)
    for key in counted:
        row = rows[key]
        seats = [s for s, p in enumerate(res.players) if p == key and res.counts(s)]
        score = sum(res.scores[s] for s in seats)
        mu, sigma = new[key]
        session.add(LadderEntry(
            result_id=rid, player=key, game=res.game, seats=",".join(map(str, seats)),
            score=score, total_after=row.total + score, mu_before=row.mu,
            sigma_before=row.sigma, mu_after=mu, sigma_after=sigma, created_at=now))
        row.total += score
        row.games += 1
        row.mu, row.sigma = mu, sigma
        row.ordinal = rating.ordinal(mu, sigma)
        row.updated_at = now
    session.flush()
    return True


# ------------------------------------------------------------------------- queries


def totals(session: Session, game: str, keys: list[str]) -> dict[str, int]:
    """Ladder totals of these players in one game (players without a result are left out)."""
    rows = session.execute(select(LadderPlayer.player, LadderPlayer.total)
                           .where(LadderPlayer.game == game, LadderPlayer.player.in_(keys)))
    return {p: t for p, t in rows}


def _player(key: str, name: str | None) -> dict[str, Any]:
    bot = key.startswith("bot:")
    return {"id": ref_of_key(key), "name": name if name is not None else ref_of_key(key),
            "kind": "bot" if bot else "user"}


def _rating(mu: float, sigma: float) -> dict[str, float]:
    return {"ordinal": round(rating.ordinal(mu, sigma), 3), "mu": round(mu, 3),
            "sigma": round(sigma, 3)}


KINDS = ("people", "bots")  # the human ladder (the default) and the bots' own


def _of_kind(kind: str) -> ColumnElement[bool]:
    """Players of one ladder: people have a user id, bots none."""
    return LadderPlayer.user_id.is_(None) if kind == "bots" else LadderPlayer.user_id.is_not(None)


def leaderboard(session: Session, game: str, limit: int, offset: int,
                kind: str = "people") -> dict[str, Any]:
    """One game's ladder of people or of bots (``kind``), by total then rating: rank,
    player, title, total, rating, games."""
    which = and_(LadderPlayer.game == game, _of_kind(kind))
    count = session.scalar(select(func.count()).select_from(LadderPlayer).where(which)) or 0
    q = (select(LadderPlayer, User.name)
         .outerjoin(User, User.id == LadderPlayer.user_id)
         .where(which)
         .order_by(LadderPlayer.total.desc(), LadderPlayer.ordinal.desc(), LadderPlayer.player)
         .limit(limit).offset(offset))
    players = []
    for i, (row, name) in enumerate(session.execute(q)):
        players.append({"rank": offset + i + 1, "player": _player(row.player, name),
                        "title": title_for(row.total), "total": row.total,
                        "rating": _rating(row.mu, row.sigma), "games": row.games})
    return {"game": game, "kind": kind, "count": count, "limit": limit, "offset": offset,
            "players": players}


def player_page(session: Session, key: str) -> dict[str, Any] | None:
    """A player's ladders (per game), recent history and rating series; None if unknown."""
    name = None
    if key.startswith("u:"):
        name = session.scalar(select(User.name).where(User.id == int(key[2:])))
        if name is None:
            return None
    standings = {p.game: p for p in session.scalars(
        select(LadderPlayer).where(LadderPlayer.player == key))}
    if name is None and not standings:
        return None  # a bot name that never played a rated result
    ladders: dict[str, Any] = {}
    for game in GAMES:
        p = standings.get(game)
        if p is None:
            ladders[game] = {"total": 0, "title": title_for(0), "games": 0, "rank": None,
                             "rating": _rating(*rating.START)}
            continue
        above = session.scalar(select(func.count()).select_from(LadderPlayer).where(
            LadderPlayer.game == game, LadderPlayer.total > p.total,
            _of_kind("bots" if p.user_id is None else "people"))) or 0
        ladders[game] = {"total": p.total, "title": title_for(p.total), "games": p.games,
                         "rank": above + 1, "rating": _rating(p.mu, p.sigma)}
    recent = session.execute(
        select(LadderEntry, LadderResultRow.table_id, LadderResultRow.hand_no)
        .join(LadderResultRow, LadderResultRow.id == LadderEntry.result_id)
        .where(LadderEntry.player == key)
        .order_by(LadderEntry.result_id.desc()).limit(HISTORY))
    history = [{"game": e.game, "table_id": tid, "hand": hand, "time": e.created_at,
                "score": e.score, "total_after": e.total_after,
                "rating_after": _rating(e.mu_after, e.sigma_after),
                "rating_change": round(rating.ordinal(e.mu_after, e.sigma_after)
                                       - rating.ordinal(e.mu_before, e.sigma_before), 3)}
               for e, tid, hand in recent]
    series: dict[str, list[dict[str, float]]] = {}
    for game in GAMES:
        points = list(session.execute(
            select(LadderEntry.created_at, LadderEntry.mu_after, LadderEntry.sigma_after,
                   LadderEntry.total_after)
            .where(LadderEntry.player == key, LadderEntry.game == game)
            .order_by(LadderEntry.result_id.desc()).limit(SERIES)))
        series[game] = [{"time": t, "ordinal": round(rating.ordinal(mu, sg), 3),
                         "total": total} for t, mu, sg, total in reversed(points)]
    return {"player": _player(key, name), "ladders": ladders, "history": history,
            "series": series}


def writer(result: LadderResult) -> Callable[[Session], None]:
    """Writes ``result`` in the transaction of the action that closed it
    (:func:`gunzi.server.db.commit_action`'s ``more``)."""

    def write(session: Session) -> None:
        apply_result(session, result, now())

    return write
