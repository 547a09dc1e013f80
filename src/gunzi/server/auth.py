"""Accounts and sessions: one-click guests, optional username + password, revocable sessions.

- A session token is ``secrets.token_urlsafe(32)`` (256 bits). The client holds it
  in an HttpOnly, SameSite=Lax cookie; the database holds only its SHA-256.
- Passwords are hashed with Argon2id (argon2-cffi), at most ``hash_concurrency``
  at a time, on worker threads; failed logins delay the account's next attempt and
  attempts per address are capped, both counted atomically in the database
  (:mod:`gunzi.server.login_guard`).
- Logging in or registering rotates the session (the old one is revoked);
  logging out revokes it server-side and closes the session's open sockets.
- Tokens and passwords are never logged.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import structlog
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from argon2.profiles import CHEAPEST, RFC_9106_LOW_MEMORY
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from gunzi.server.db import SessionRow, Store, User, now
from gunzi.server.limits import Throttle, is_loopback
from gunzi.server.login_guard import LoginGuards
from gunzi.server.metrics import Metrics
from gunzi.server.settings import Settings

log = structlog.get_logger("gunzi.auth")

USERNAME = re.compile(r"^[A-Za-z0-9_\-]{3,24}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 256
CACHE_SECONDS = 60.0


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def make_hasher(profile: str) -> PasswordHasher:
    if profile == "cheapest":
        return PasswordHasher.from_parameters(CHEAPEST)
    if profile == "rfc9106-low":
        return PasswordHasher.from_parameters(RFC_9106_LOW_MEMORY)
    # OWASP minimum for Argon2id: 19 MiB, t=2, p=1.
    return PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


@dataclass(frozen=True)
class Principal:
    """Who is calling: a user and the session that proved it."""

    user_id: int
    name: str
    guest: bool
    session_id: int

    def public(self) -> dict[str, Any]:
        return {"id": self.user_id, "name": self.name, "guest": self.guest}


class AuthError(Exception):
    def __init__(self, status: int, code: str, message: str, retry_after: float = 0.0) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


class Accounts:
    def __init__(self, settings: Settings, store: Store, metrics: Metrics) -> None:
        self.settings = settings
        self.store = store
        self.metrics = metrics
        self.hasher = make_hasher(settings.argon2_profile)
        self._dummy_hash: str | None = None
        self.hash_slots = asyncio.Semaphore(max(1, settings.hash_concurrency))
        self.cache: dict[str, tuple[float, Principal | None]] = {}
        self.guards = LoginGuards(settings)
        self.new_accounts = Throttle(settings.accounts_per_ip_hour, 3600.0)
        self.on_revoke: list[Callable[[int], None]] = []  # called with a revoked session id

    # ------------------------------------------------------------- hashing
    async def _hash(self, password: str) -> str:
        async with self.hash_slots:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, stored: str | None, password: str) -> bool:
        if stored is None:
            # Same cost as a real check, so response time does not tell which names exist.
            if self._dummy_hash is None:
                self._dummy_hash = await self._hash(secrets.token_urlsafe(16))
            stored = self._dummy_hash
            real = False
        else:
            real = True
        async with self.hash_slots:
            try:
                await asyncio.to_thread(self.hasher.verify, stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False
        return real

    # ------------------------------------------------------------- sessions
    def _new_session(self, session: Session, user_id: int) -> tuple[str, int]:
        token = secrets.token_urlsafe(32)
        t = now()
        row = SessionRow(token_hash=hash_token(token), user_id=user_id, created_at=t,
                         expires_at=t + self.settings.session_days * 86400.0)
        session.add(row)
        session.flush()
        return token, row.id

    async def resolve(self, token: str | None) -> Principal | None:
        if not token or len(token) > 128:
            return None
        key = hash_token(token)
        hit = self.cache.get(key)
        mono = time.monotonic()
        if hit is not None and hit[0] > mono:
            return hit[1]

        def q(session: Session) -> Principal | None:
            row = session.execute(
                select(SessionRow, User).join(User, User.id == SessionRow.user_id)
                .where(SessionRow.token_hash == key)
            ).first()
            if row is None:
                return None
            srow, user = row
            if srow.revoked_at is not None or srow.expires_at < now():
                return None
            return Principal(user.id, user.name, user.guest, srow.id)

        principal = await self.store.run(q)
        if len(self.cache) > 50_000:
            self.cache.clear()
        self.cache[key] = (mono + CACHE_SECONDS, principal)
        return principal

    async def revoke(self, token: str | None) -> Principal | None:
        principal = await self.resolve(token)
        if token is None or principal is None:
            return None
        key = hash_token(token)

        def q(session: Session) -> None:
            session.execute(
                update(SessionRow).where(SessionRow.token_hash == key).values(revoked_at=now())
            )

        await self.store.run(q)
        self.cache.pop(key, None)
        for callback in self.on_revoke:
            callback(principal.session_id)
        return principal

    # ------------------------------------------------------------- accounts
    async def guest(self, old_token: str | None = None) -> tuple[Principal, str]:
        await self.revoke(old_token)

        def q(session: Session) -> tuple[Principal, str]:
            for _ in range(20):
                name = "guest-" + secrets.token_hex(3)
                if session.scalar(select(User.id).where(User.name_key == name)) is None:
                    break
            user = User(name=name, name_key=name, guest=True, created_at=now())
            session.add(user)
            session.flush()
            token, sid = self._new_session(session, user.id)
            return Principal(user.id, user.name, True, sid), token

        principal, token = await self.store.run(q)
        log.info("guest_created", user=principal.user_id)
        return principal, token

    async def register(
        self, current: Principal | None, old_token: str | None, username: str, password: str
    ) -> tuple[Principal, str]:
        if not USERNAME.match(username) or username.lower().startswith("guest-"):
            raise AuthError(400, "bad_username",
                            "a username is 3-24 letters, digits, '_' or '-', not 'guest-…'")
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise AuthError(400, "bad_password",
                            f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
        if password.lower() == username.lower():
            raise AuthError(400, "bad_password", "the password must differ from the username")
        pw_hash = await self._hash(password)
        upgrade = current.user_id if current is not None and current.guest else None

        def q(session: Session) -> tuple[Principal, str]:
            key = username.lower()
            if session.scalar(select(User.id).where(User.name_key == key)) is not None:
                raise AuthError(409, "name_taken", "that username is taken")
            if upgrade is not None:
                user = session.get(User, upgrade)
                assert user is not None
                user.name, user.name_key, user.password_hash, user.guest = (
                    username, key, pw_hash, False)
            else:
                user = User(name=username, name_key=key, password_hash=pw_hash, guest=False,
                            created_at=now())
                session.add(user)
            session.flush()
            token, sid = self._new_session(session, user.id)
            return Principal(user.id, user.name, False, sid), token

        try:
            principal, token = await self.store.run(q)
        except IntegrityError:
            raise AuthError(409, "name_taken", "that username is taken") from None
        await self.revoke(old_token)
        log.info("registered", user=principal.user_id, upgraded=upgrade is not None)
        return principal, token

    async def login(
        self, username: str, password: str, ip: str, old_token: str | None
    ) -> tuple[Principal, str]:
        key = username.lower()[:64]
        if len(password) > MAX_PASSWORD:
            raise AuthError(401, "bad_credentials", "wrong username or password")
        # Claimed (counted as a failure) before the password is checked, in one statement:
        # concurrent attempts past the limit are refused without hashing anything.
        claim = await self.store.run(self.guards.claim, key, ip, now())
        if not claim.ok:
            self.metrics.logins.labels("throttled").inc()
            wait = max(1, math.ceil(claim.retry_after))
            message = (f"too many failed logins for this account; try again in {wait} s"
                       if claim.code == "login_delayed" else
                       f"too many login attempts from your address; try again in {wait} s")
            raise AuthError(429, claim.code, message, wait)

        def find(session: Session) -> tuple[int, str | None] | None:
            row = session.execute(
                select(User.id, User.password_hash).where(User.name_key == key)
            ).first()
            return None if row is None else (row[0], row[1])

        found = await self.store.run(find)
        ok = await self._verify(found[1] if found else None, password)
        if not ok or found is None:
            self.metrics.logins.labels("failed").inc()
            log.info("login_failed", ip=ip)
            raise AuthError(401, "bad_credentials", "wrong username or password")
        user_id, stored = found
        rehash = stored is not None and self.hasher.check_needs_rehash(stored)
        new_hash = await self._hash(password) if rehash else None

        def q(session: Session) -> tuple[Principal, str]:
            user = session.get(User, user_id)
            assert user is not None
            if new_hash is not None:
                user.password_hash = new_hash
            LoginGuards.release(session, claim)
            token, sid = self._new_session(session, user.id)
            return Principal(user.id, user.name, user.guest, sid), token

        principal, token = await self.store.run(q)
        await self.revoke(old_token)
        self.metrics.logins.labels("ok").inc()
        log.info("login", user=principal.user_id)
        return principal, token


# --------------------------------------------------------------------- HTTP layer


def token_of(request: Request, settings: Settings) -> str | None:
    token = request.cookies.get(settings.cookie_name)
    if token:
        return token
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return None


def accounts_of(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


async def optional_principal(request: Request) -> Principal | None:
    accounts = accounts_of(request)
    return await accounts.resolve(token_of(request, accounts.settings))


async def require_principal(request: Request) -> Principal:
    principal = await optional_principal(request)
    if principal is None:
        raise HTTPException(401, detail={"code": "login_required",
                                         "message": "sign in (a guest is fine) first"})
    return principal


MaybeUser = Annotated[Principal | None, Depends(optional_principal)]
CurrentUser = Annotated[Principal, Depends(require_principal)]


class Credentials(BaseModel):
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


router = APIRouter(prefix="/api")


def _set_cookie(response: Response, settings: Settings, token: str) -> None:
    response.set_cookie(
        settings.cookie_name, token, max_age=settings.session_days * 86400, path="/",
        httponly=True, samesite="lax", secure=settings.cookie_secure,
    )


def _fail(exc: AuthError) -> HTTPException:
    headers = {"Retry-After": str(int(exc.retry_after))} if exc.retry_after else None
    return HTTPException(exc.status, detail={"code": exc.code, "message": exc.message},
                         headers=headers)


def _client_ip(request: Request) -> str:
    return request.client.host if request.client else "?"


async def _count_new_account(accounts: Accounts, request: Request) -> None:
    """Accounts made from one address are capped, in the whole hall (loopback is exempt:
    tests, benchmarks, and a reverse proxy that does not forward the client's address)."""
    ip = _client_ip(request)
    if is_loopback(ip):
        return
    if not await accounts.new_accounts.allow(ip):
        raise HTTPException(429, detail={"code": "too_many_accounts",
                                         "message": "too many new accounts from your address"})


@router.post("/auth/guest")
async def guest(request: Request, response: Response) -> dict[str, Any]:
    """Play at once: a new guest account and its session cookie."""
    accounts = accounts_of(request)
    await _count_new_account(accounts, request)
    principal, token = await accounts.guest(token_of(request, accounts.settings))
    _set_cookie(response, accounts.settings, token)
    return {"user": principal.public()}


@router.post("/auth/register")
async def register(body: Credentials, request: Request, response: Response,
                   user: MaybeUser) -> dict[str, Any]:
    """Create an account; a guest calling this keeps its identity (and tables) under the name."""
    accounts = accounts_of(request)
    if user is None or not user.guest:
        await _count_new_account(accounts, request)
    try:
        principal, token = await accounts.register(
            user, token_of(request, accounts.settings), body.username, body.password)
    except AuthError as exc:
        raise _fail(exc) from None
    _set_cookie(response, accounts.settings, token)
    return {"user": principal.public()}


@router.post("/auth/login")
async def login(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
    accounts = accounts_of(request)
    ip = _client_ip(request)
    try:
        principal, token = await accounts.login(
            body.username, body.password, ip, token_of(request, accounts.settings))
    except AuthError as exc:
        raise _fail(exc) from None
    _set_cookie(response, accounts.settings, token)
    return {"user": principal.public()}


@router.post("/auth/logout")
async def logout(request: Request, response: Response) -> dict[str, Any]:
    accounts = accounts_of(request)
    await accounts.revoke(token_of(request, accounts.settings))
    response.delete_cookie(accounts.settings.cookie_name, path="/", httponly=True,
                           samesite="lax", secure=accounts.settings.cookie_secure)
    return {"ok": True}


@router.get("/me")
async def me(user: MaybeUser) -> dict[str, Any]:
    """Who this session is: ``{"user": null}`` without one (a normal state, not an error)."""
    return {"user": user.public() if user is not None else None}
