"""Login throttling: a per-account progressive delay and a per-address window, counted in
the database in one statement each, so that concurrent attempts (in one process or in
several sharing the database) cannot all slip past the limit before any is counted.

An attempt first *claims* its place (counted as a failure in advance); only a claimed
attempt has its password checked, and a success gives the claim back. The policy is
described in docs/server.md ("Login throttling").
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, case, delete, literal, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from gunzi.server.db import LoginGuard
from gunzi.server.limits import is_loopback
from gunzi.server.settings import Settings

PRUNE_EVERY = 512  # claims between deletions of rows nothing refers to any more


@dataclass(frozen=True)
class Claim:
    """The outcome of claiming an attempt: allowed, or refused with a wait."""

    ok: bool
    code: str = ""  # "login_delayed" (the account) or "too_many_attempts" (the address)
    retry_after: float = 0.0
    user_key: str = ""
    ip_key: str = ""
    token: str = ""
    window: float = 0.0  # the address window the attempt was counted in


class LoginGuards:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.claims = 0

    def delay(self, failures: int) -> float:
        """Seconds an account waits after ``failures`` consecutive failures: none after
        the first ``login_free_failures``, then doubling from the base to the cap."""
        s = self.settings
        extra = failures - s.login_free_failures
        if extra <= 0:
            return 0.0
        return min(s.login_delay_max, s.login_delay_base * 2.0 ** min(extra - 1, 60))

    def _delay_sql(self, failures: ColumnElement[Any]) -> ColumnElement[Any]:
        """:meth:`delay` as a SQL CASE over the failure count (no power function needed)."""
        whens = []
        n = 1
        while self.delay(n) < self.settings.login_delay_max and n < 200:
            whens.append((failures == n, self.delay(n)))
            n += 1
        if not whens:
            return literal(self.settings.login_delay_max)
        return case(*whens, else_=self.settings.login_delay_max)

    @staticmethod
    def _upsert(session: Session, values: dict[str, Any], set_: dict[str, Any]) -> Any:
        dialect = sqlite if session.get_bind().dialect.name == "sqlite" else postgresql
        table = LoginGuard.__table__
        stmt = (dialect.insert(table).values(**values)
                .on_conflict_do_update(index_elements=[table.c.key], set_=set_)
                .returning(table.c.failures, table.c.last_at, table.c.next_at, table.c.claim))
        return session.execute(stmt).one()

    def claim(self, session: Session, username_key: str, ip: str, now: float) -> Claim:
        """Count one attempt for the address, then for the account; refused without
        changing the account's row when the address is over its limit or the account is
        still waiting out its delay."""
        s = self.settings
        t = LoginGuard.__table__.c
        token = secrets.token_hex(8)
        ip_key, window = "ip:" + ip[:64], 0.0
        if not is_loopback(ip):  # as every per-address limit (gunzi.server.limits)
            expired = t.last_at <= now - s.login_ip_window
            row = self._upsert(
                session,
                {"key": ip_key, "failures": 1, "last_at": now, "next_at": 0.0, "claim": token},
                {"failures": case((expired, 1), else_=t.failures + 1),
                 "last_at": case((expired, now), else_=t.last_at), "claim": token})
            window = float(row.last_at)
            if row.failures > s.login_attempts_per_ip:
                return Claim(False, "too_many_attempts", window + s.login_ip_window - now)

        user_key = "u:" + username_key
        held = t.next_at > now
        counted = case((t.last_at < now - s.login_forget_after, 1), else_=t.failures + 1)
        row = self._upsert(
            session,
            {"key": user_key, "failures": 1, "last_at": now, "next_at": now + self.delay(1),
             "claim": token},
            {"failures": case((held, t.failures), else_=counted),
             "last_at": case((held, t.last_at), else_=now),
             "next_at": case((held, t.next_at), else_=now + self._delay_sql(counted)),
             "claim": case((held, t.claim), else_=token)})
        self._prune(session, now)
        if row.claim != token:
            return Claim(False, "login_delayed", float(row.next_at) - now)
        return Claim(True, user_key=user_key, ip_key=ip_key, token=token, window=window)

    @staticmethod
    def release(session: Session, claim: Claim) -> None:
        """A successful login: the account's failures are forgotten and the address gets
        its attempt back."""
        t = LoginGuard.__table__.c
        session.execute(update(LoginGuard).where(t.key == claim.user_key)
                        .values(failures=0, next_at=0.0, claim=claim.token))
        session.execute(update(LoginGuard)
                        .where(t.key == claim.ip_key, t.last_at == claim.window,
                               t.failures > 0)
                        .values(failures=t.failures - 1))

    def _prune(self, session: Session, now: float) -> None:
        self.claims += 1
        if self.claims % PRUNE_EVERY:
            return
        s = self.settings
        old = now - max(s.login_forget_after, s.login_ip_window)
        t = LoginGuard.__table__.c
        session.execute(delete(LoginGuard).where(t.last_at < old, t.next_at < now))
