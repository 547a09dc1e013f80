"""Fast 打滚子 play-outs on a compact representation, for the search bot's inner loop.

A :class:`Compact` position is the play phase of one hand as flat integer arrays:
per-seat card counts, per-seat counts per suit class, the trick in progress, the
points per team, plus the per-hand tables (class, power and points of each card id,
the members of each class from weakest to strongest) taken from
:func:`gunzi.engine.order.order_for`. The kernel functions below (``k_*``) use
nothing but integer arithmetic on those arrays, so one source runs two ways:

* as plain Python on lists (always available), and
* compiled by numba on numpy arrays (``pip install numba``; optional), see
  :func:`backend`.

The kernel plays the hand to its end with a cheap greedy policy that sees every hand
(as a determinized rollout may): cash sure side-suit winners, pull trumps with sure
winners while the team holds more trumps, lead towards the partner's ruff, else lead
the cheapest card of the shortest side suit nobody can ruff; when following, feed
points to a partner who surely wins, duck low when the partner (last to play) takes
the trick, take the trick with the cheapest card that holds when it is worth it,
contest rich tricks, else discard the cheapest cards; and keep the top trump for the
last trick (抠底) while nobody holds a stronger one. It is much weaker than the rule
bot (about -0.26 net levels per hand against it as a stand-alone player), so the
search bot uses it for candidate generation, for the tail of long rollouts and when
the rule bot is missing. The rules it applies (legal follows under 死棒/活棒, trick
winner, points, the last-trick kitty capture) are checked move for move against the
engine by ``tests/bots/test_search_rollout.py``.
"""

from __future__ import annotations

import random
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from gunzi.engine import scoring
from gunzi.engine.cards import BJ, LJ, NUM_TYPES, POINTS, Card
from gunzi.engine.order import TRUMP, Order, order_for

NT = NUM_TYPES  # card ids per hand row
NCLS = 5  # suit classes: 0..3 side suits, 4 trumps
TR = TRUMP
MAXM = NUM_TYPES  # row width of the class-members table
RESERVE_ABOVE = 0  # keep the top trump for the last trick if at most this many seats beat it

# --------------------------------------------------------------------------- kernel
# Everything from here to the end of the kernel section must stay numba-compatible:
# integer arrays in, integers out, no Python objects, no allocation.


def k_key(c: int, CLS: Any, POW: Any, PTS: Any, feed: int) -> int:
    """Which card to give away first (smaller first): low, or point cards when feeding."""
    t = 1000 if CLS[c] == TR else 0
    if feed:
        return int((0 if PTS[c] > 0 else 4000) + t - PTS[c] * 10 + POW[c])
    return int((2000 if PTS[c] > 0 else 0) + t + POW[c])


def k_best(TC: Any, tl: int, tn: int, CLS: Any, POW: Any) -> tuple[int, int, int]:
    """(index of the play winning so far, its class, its power) among the first tl plays."""
    lead = TC[0]
    led = CLS[lead]
    best = 0
    bc = led
    bp = POW[lead]
    for j in range(1, tl):
        f = TC[j * 3]
        same = True
        for i in range(1, tn):
            if TC[j * 3 + i] != f:
                same = False
                break
        if not same:
            continue
        c = CLS[f]
        p = POW[f]
        if c == bc:
            if p > bp:
                best = j
                bp = p
        elif c == TR and led != TR:
            best = j
            bc = c
            bp = p
    return best, bc, bp


def k_top(H: Any, s: int, MEM: Any, MLEN: Any, K: int) -> int:
    """The strongest card id of class K that seat s holds, or -1."""
    row = s * NT
    base = K * MAXM
    for i in range(MLEN[K] - 1, -1, -1):
        c = MEM[base + i]
        if H[row + c] > 0:
            return int(c)
    return -1


def k_higher_out(H: Any, s: int, c: int, CLS: Any, POW: Any, MEM: Any, MLEN: Any) -> int:
    """Copies of stronger cards of c's class in the other three hands."""
    K = CLS[c]
    base = K * MAXM
    n = 0
    for i in range(MLEN[K] - 1, -1, -1):
        d = MEM[base + i]
        if POW[d] <= POW[c]:
            break
        for o in range(4):
            if o != s:
                n += H[o * NT + d]
    return n


def k_reserve(H: Any, NC: Any, POW: Any, MEM: Any, MLEN: Any, s: int) -> int:
    """The trump seat s keeps for the last trick: its strongest, if no other seat holds a
    stronger one (-1 if none, or if s has one card left)."""
    size = 0
    for k in range(NCLS):
        size += NC[s * NCLS + k]
    if size <= 1:
        return -1
    c = k_top(H, s, MEM, MLEN, TR)
    if c < 0:
        return -1
    above = 0
    for o in range(4):
        if o != s:
            d = k_top(H, o, MEM, MLEN, TR)
            if d >= 0 and POW[d] > POW[c]:
                above += 1
    if above > RESERVE_ABOVE:
        return -1
    return c


def k_max_beat(H: Any, NC: Any, POW: Any, MEM: Any, MLEN: Any, s: int, K: int, n: int,
               bc: int, bp: int) -> tuple[int, int]:
    """(class, power) of the strongest play seat s could make that beats the best play
    (bc, bp) of a K-led trick of n cards, or (-1, -1)."""
    m = NC[s * NCLS + K]
    row = s * NT
    bk = -1
    if m >= n and bc == K:
        bk = K
    elif m == 0 and K != TR:
        bk = TR
    if bk < 0:
        return -1, -1
    base = bk * MAXM
    for i in range(MLEN[bk] - 1, -1, -1):
        d = MEM[base + i]
        if bc == bk and POW[d] <= bp:
            return -1, -1
        if H[row + d] >= n:
            return bk, int(POW[d])
    return -1, -1


def k_can_beat(H: Any, NC: Any, POW: Any, MEM: Any, MLEN: Any, s: int, K: int, n: int,
               bc: int, bp: int) -> int:
    """1 if seat s could legally beat the best play (class bc, power bp) of a K-led trick."""
    c, _ = k_max_beat(H, NC, POW, MEM, MLEN, s, K, n, bc, bp)
    return 1 if c >= 0 else 0


def k_pick(H: Any, s: int, CLS: Any, POW: Any, PTS: Any, MEM: Any, MLEN: Any, K: int,
           skip: int, feed: int, rsv: int, OUT: Any, start: int, cnt: int) -> None:
    """Write the cnt cheapest card instances into OUT[start:]: of class K, or (K < 0) of
    every class but ``skip``; cards already in OUT[:start] are not available twice, and
    the last copy of the reserved card ``rsv`` goes last."""
    row = s * NT
    for q in range(cnt):
        pos = start + q
        best = -1
        bkey = 1 << 30
        for k in range(NCLS):
            if K >= 0 and k != K:
                continue
            if K < 0 and k == skip:
                continue
            base = k * MAXM
            for i in range(MLEN[k]):
                c = MEM[base + i]
                have = H[row + c]
                if have == 0:
                    continue
                for j in range(pos):
                    if OUT[j] == c:
                        have -= 1
                if have <= 0:
                    continue
                key = k_key(c, CLS, POW, PTS, feed)
                if c == rsv and have <= 1:
                    key += 100000
                if key < bkey:
                    bkey = key
                    best = c
        OUT[pos] = best


def k_best_type(H: Any, s: int, CLS: Any, POW: Any, PTS: Any, MEM: Any, MLEN: Any, K: int,
                lo: int, hi: int, feed: int, avoid: int, rsv: int, use: int) -> int:
    """The cheapest card id of class K held with a count in [lo, hi], other than avoid
    (using ``use`` copies; the reserved card goes last if that takes its last copy)."""
    row = s * NT
    best = -1
    bkey = 1 << 30
    base = K * MAXM
    for i in range(MLEN[K]):
        c = MEM[base + i]
        h = H[row + c]
        if h < lo or h > hi or c == avoid:
            continue
        key = k_key(c, CLS, POW, PTS, feed)
        if c == rsv and h <= use:
            key += 100000
        if key < bkey:
            bkey = key
            best = c
    return best


def k_dump(H: Any, NC: Any, CLS: Any, POW: Any, PTS: Any, MEM: Any, MLEN: Any, s: int,
           K: int, n: int, live: int, feed: int, rsv: int, OUT: Any) -> None:
    """A legal follow to a K-led trick of n cards, giving away the cheapest cards
    (or the most points, when feeding a partner who wins)."""
    held = NC[s * NCLS + K]
    row = s * NT
    if held < n:
        # Every card of the led class, then the cheapest fill.
        j = 0
        base = K * MAXM
        for i in range(MLEN[K]):
            c = MEM[base + i]
            for _ in range(H[row + c]):
                OUT[j] = c
                j += 1
        k_pick(H, s, CLS, POW, PTS, MEM, MLEN, -1, K, feed, rsv, OUT, j, n - j)
        return
    if n == 1 or live:
        k_pick(H, s, CLS, POW, PTS, MEM, MLEN, K, -1, feed, rsv, OUT, 0, n)
        return
    base = K * MAXM
    pairs = 0
    triples = 0
    for i in range(MLEN[K]):
        h = H[row + MEM[base + i]]
        if h == 2:
            pairs += 1
        elif h == 3:
            triples += 1
    if n == 2:
        if pairs:
            c = k_best_type(H, s, CLS, POW, PTS, MEM, MLEN, K, 2, 3, feed, -1, rsv, 2)
            OUT[0] = c
            OUT[1] = c
        else:
            k_pick(H, s, CLS, POW, PTS, MEM, MLEN, K, -1, feed, rsv, OUT, 0, 2)
        return
    if triples:
        c = k_best_type(H, s, CLS, POW, PTS, MEM, MLEN, K, 3, 3, feed, -1, rsv, 3)
        OUT[0] = c
        OUT[1] = c
        OUT[2] = c
    elif pairs:
        c = k_best_type(H, s, CLS, POW, PTS, MEM, MLEN, K, 2, 3, feed, -1, rsv, 2)
        d = k_best_type(H, s, CLS, POW, PTS, MEM, MLEN, K, 1, 3, feed, c, rsv, 1)
        OUT[0] = c
        OUT[1] = c
        OUT[2] = d
    else:
        k_pick(H, s, CLS, POW, PTS, MEM, MLEN, K, -1, feed, rsv, OUT, 0, 3)


def k_lead(H: Any, NC: Any, CLS: Any, POW: Any, PTS: Any, MEM: Any, MLEN: Any, s: int,
           OUT: Any) -> int:
    """Lead: cash sure side-suit winners (bigger shapes and points first); pull trumps with
    sure trump winners while the team has more trumps; lead towards the partner's ruff;
    else the cheapest card of the shortest side suit nobody can ruff. Writes OUT,
    returns the lead size."""
    row = s * NT
    o1 = (s + 1) % 4
    pt = (s + 2) % 4
    o2 = (s + 3) % 4
    rsv = k_reserve(H, NC, POW, MEM, MLEN, s)
    ours = NC[s * NCLS + TR] + NC[pt * NCLS + TR]
    theirs = NC[o1 * NCLS + TR] + NC[o2 * NCLS + TR]
    pull = 1 if theirs > 0 and 2 * ours >= 3 * theirs else 0
    best = -1
    bn = 0
    bscore = -1
    for k in range(NCLS):
        if k == TR and not pull:
            continue
        base = k * MAXM
        for i in range(MLEN[k] - 1, -1, -1):
            c = MEM[base + i]
            h = H[row + c]
            if c == rsv:
                h -= 1
            if h <= 0:
                continue
            top = h if h < 3 else 3
            for n in range(top, 0, -1):
                score = n * 100 + PTS[c] * n + (0 if k == TR else 50)
                if score <= bscore:
                    continue
                if k_can_beat(H, NC, POW, MEM, MLEN, o1, k, n, k, POW[c]):
                    continue
                if k_can_beat(H, NC, POW, MEM, MLEN, o2, k, n, k, POW[c]):
                    continue
                best = c
                bn = n
                bscore = score
    if best >= 0:
        for i in range(bn):
            OUT[i] = best
        return bn
    # Towards the partner's ruff: a side suit the partner is void in, holding trumps,
    # that the opponent after the partner must still follow.
    if NC[pt * NCLS + TR] > 0:
        for k in range(4):
            if NC[s * NCLS + k] > 0 and NC[pt * NCLS + k] == 0 and NC[o2 * NCLS + k] > 0:
                k_pick(H, s, CLS, POW, PTS, MEM, MLEN, k, -1, 0, rsv, OUT, 0, 1)
                return 1
    # The shortest side suit no opponent can ruff (else the shortest side suit).
    short = -1
    slen = 1 << 30
    for safe_only in range(2):
        for k in range(4):
            m = NC[s * NCLS + k]
            if m == 0 or m >= slen:
                continue
            if safe_only == 0:
                ruff = 0
                for o in (o1, o2):
                    if NC[o * NCLS + k] == 0 and NC[o * NCLS + TR] > 0:
                        ruff = 1
                if ruff:
                    continue
            slen = m
            short = k
        if short >= 0:
            break
    if short < 0:
        short = TR
    k_pick(H, s, CLS, POW, PTS, MEM, MLEN, short, -1, 0, rsv, OUT, 0, 1)
    return 1


def k_beats(c1: int, p1: int, c2: int, p2: int, led: int) -> int:
    """1 if a later play (class c1, power p1) beats the best so far (c2, p2)."""
    if c1 == c2:
        return 1 if p1 > p2 else 0
    return 1 if c1 == TR and c2 == led and led != TR else 0


def k_follow(H: Any, NC: Any, CLS: Any, POW: Any, PTS: Any, MEM: Any, MLEN: Any, s: int,
             TC: Any, tl: int, tn: int, leader: int, live: int, OUT: Any) -> None:
    """Follow: feed a partner who surely wins; otherwise take the trick with the cheapest
    card that holds when it is worth it, duck low when the partner (last to play) takes
    it, contest a rich trick, else discard the cheapest cards."""
    K = CLS[TC[0]]
    n = tn
    bj, bc, bp = k_best(TC, tl, tn, CLS, POW)
    wseat = (leader + bj) % 4
    team = s % 2
    pt = (s + 2) % 4
    rsv = k_reserve(H, NC, POW, MEM, MLEN, s)
    pts = 0
    for j in range(tl):
        for i in range(tn):
            pts += PTS[TC[j * 3 + i]]
    # Opponents still to play after s in this trick; is the partner still to play?
    after1 = -1
    after2 = -1
    partner_later = 0
    for j in range(tl + 1, 4):
        r = (leader + j) % 4
        if r % 2 != team:
            if after1 < 0:
                after1 = r
            else:
                after2 = r
        else:
            partner_later = 1
    held = NC[s * NCLS + K]
    row = s * NT
    # The cheapest beating play that no opponent after s can top, and the strongest one.
    pick = -1
    strongest = -1
    bk = -1
    if held >= n and bc == K:
        bk = K
    elif held == 0 and K != TR:
        bk = TR
    if bk >= 0:
        base = bk * MAXM
        for i in range(MLEN[bk]):
            c = MEM[base + i]
            h = H[row + c]
            if c == rsv and pts < 25:
                h -= 1
            if h < n:
                continue
            if bc == bk and POW[c] <= bp:
                continue
            strongest = c
            if pick >= 0:
                continue
            safe = 1
            if after1 >= 0 and k_can_beat(H, NC, POW, MEM, MLEN, after1, K, n, bk, POW[c]):
                safe = 0
            if after2 >= 0 and k_can_beat(H, NC, POW, MEM, MLEN, after2, K, n, bk, POW[c]):
                safe = 0
            if safe:
                pick = c
    if wseat % 2 == team:
        safe = 1
        if after1 >= 0 and k_can_beat(H, NC, POW, MEM, MLEN, after1, K, n, bc, bp):
            safe = 0
        if after2 >= 0 and k_can_beat(H, NC, POW, MEM, MLEN, after2, K, n, bc, bp):
            safe = 0
        if not safe and pick >= 0 and pts >= 10:
            for i in range(n):
                OUT[i] = pick
            return
        k_dump(H, NC, CLS, POW, PTS, MEM, MLEN, s, K, n, live, safe, rsv, OUT)
        return
    # An opponent is winning. Does the partner, last to play, take the trick anyway?
    if partner_later:
        pc, pp = k_max_beat(H, NC, POW, MEM, MLEN, pt, K, n, bc, bp)
        if pc >= 0:
            tc, tp = k_max_beat(H, NC, POW, MEM, MLEN, after1, K, n, bc, bp)
            if tc < 0 or k_beats(pc, pp, tc, tp, K):
                k_dump(H, NC, CLS, POW, PTS, MEM, MLEN, s, K, n, live, 1, rsv, OUT)
                return
    if pick >= 0:
        cheap = 1
        if CLS[pick] == TR and k_higher_out(H, s, pick, CLS, POW, MEM, MLEN) <= 3:
            cheap = 0
        if cheap or pts >= 10 or (after1 < 0 and pts >= 5):
            for i in range(n):
                OUT[i] = pick
            return
    if pick < 0 and strongest >= 0 and pts >= 10:
        for i in range(n):
            OUT[i] = strongest
        return
    k_dump(H, NC, CLS, POW, PTS, MEM, MLEN, s, K, n, live, 0, rsv, OUT)


def k_play_out(H: Any, NC: Any, CLS: Any, POW: Any, PTS: Any, MEM: Any, MLEN: Any, TC: Any,
               OUT: Any, MV: Any, leader: int, tl: int, tn: int, p0: int, p1: int,
               lastw: int, live: int, record: int) -> tuple[int, int, int, int]:
    """Play the hand to its end; returns (team 0 points, team 1 points, last trick's
    winner, moves made). With ``record`` each move is written to MV as seat, c0, c1, c2
    (-1 for unused cards)."""
    nm = 0
    while True:
        s = (leader + tl) % 4
        if tl == 0:
            tn = k_lead(H, NC, CLS, POW, PTS, MEM, MLEN, s, OUT)
        else:
            k_follow(H, NC, CLS, POW, PTS, MEM, MLEN, s, TC, tl, tn, leader, live, OUT)
        row = s * NT
        for i in range(tn):
            c = OUT[i]
            H[row + c] -= 1
            NC[s * NCLS + CLS[c]] -= 1
            TC[tl * 3 + i] = c
        if record:
            MV[nm * 4] = s
            for i in range(3):
                MV[nm * 4 + 1 + i] = OUT[i] if i < tn else -1
        nm += 1
        tl += 1
        if tl == 4:
            bj, _bc, _bp = k_best(TC, 4, tn, CLS, POW)
            w = (leader + bj) % 4
            pts = 0
            for j in range(4):
                for i in range(tn):
                    pts += PTS[TC[j * 3 + i]]
            if w % 2 == 0:
                p0 += pts
            else:
                p1 += pts
            lastw = w
            leader = w
            tl = 0
            left = 0
            for k in range(NCLS):
                left += NC[w * NCLS + k]
            if left == 0:
                break
    return p0, p1, lastw, nm


KERNEL = ("k_key", "k_best", "k_top", "k_higher_out", "k_reserve", "k_max_beat", "k_can_beat",
          "k_pick", "k_best_type", "k_dump", "k_lead", "k_beats", "k_follow", "k_play_out")

# ----------------------------------------------------------------------- backends


@dataclass(frozen=True)
class Backend:
    """The kernel functions, as plain Python or compiled, and the array type they take."""

    name: str
    play_out: Callable[..., tuple[int, int, int, int]]
    lead: Callable[..., int]
    follow: Callable[..., None]
    array: Callable[[Sequence[int]], Any]


_PYTHON = Backend("python", k_play_out, k_lead, k_follow, list)
_NUMBA: list[Backend | None] = []


def _compile_numba() -> Backend | None:
    try:
        import numba
        import numpy as np
    except ImportError:
        return None
    env: dict[str, Any] = dict(globals())
    compiled: dict[str, Any] = {}
    for name in KERNEL:  # callees first: each is compiled against the compiled ones
        f = globals()[name]
        clone = types.FunctionType(f.__code__, env, name, f.__defaults__, f.__closure__)
        compiled[name] = numba.njit(cache=True, nogil=True)(clone)
        env[name] = compiled[name]

    def array(values: Sequence[int]) -> Any:
        return np.array(values, dtype=np.int64)

    return Backend("numba", compiled["k_play_out"], compiled["k_lead"], compiled["k_follow"],
                   array)


def backend(name: str = "auto") -> Backend:
    """``python``, ``numba`` (ImportError if numba is missing) or ``auto`` (numba if any)."""
    if name == "python":
        return _PYTHON
    if not _NUMBA:
        try:
            _NUMBA.append(_compile_numba())
        except Exception:  # a broken numba install must not break the bot
            _NUMBA.append(None)
    nb = _NUMBA[0]
    if nb is None:
        if name == "numba":
            raise ImportError("numba is not installed (pip install numba)")
        return _PYTHON
    return nb


# ------------------------------------------------------------------- the position


@dataclass(frozen=True)
class Tables:
    """Per-hand card tables for the kernel (flat lists)."""

    cls: list[int]
    power: list[int]
    points: list[int]
    members: list[int]  # class k's card ids, weakest first, at [k * MAXM : k * MAXM + mlen[k]]
    mlen: list[int]
    order: Order

    @property
    def trump_class(self) -> int:
        return TR


@cache
def tables_for(level: int, trump: int, permanent_twos: bool) -> Tables:
    order = order_for(level, trump, permanent_twos)
    members = [0] * (NCLS * MAXM)
    mlen = [0] * NCLS
    for k in range(NCLS):
        ids = order.class_cards[k]
        mlen[k] = len(ids)
        for i, c in enumerate(ids):
            members[k * MAXM + i] = c
    return Tables(list(order.cls), list(order.power), list(POINTS), members, mlen, order)


_ARRAYS: dict[tuple[str, int], tuple[Any, ...]] = {}


def _tables_as(bk: Backend, t: Tables) -> tuple[Any, ...]:
    key = (bk.name, id(t))
    got = _ARRAYS.get(key)
    if got is None:
        got = (bk.array(t.cls), bk.array(t.power), bk.array(t.points), bk.array(t.members),
               bk.array(t.mlen), t)
        _ARRAYS[key] = got
    return got


@dataclass(frozen=True)
class Outcome:
    """The end of a hand as A8 scores it."""

    points: tuple[int, int]  # trick points per team
    last_winner: int
    score: int  # attackers' score, the kitty doubled if they won the last trick
    kou: bool
    attackers_take: bool
    upgrading_team: int | None
    levels: int  # A8 levels for the upgrading team, kitty jokers included, before the cap

    def net_levels(self, team: int) -> int:
        """Levels ``team`` gains minus levels the other team gains (uncapped)."""
        if self.upgrading_team is None:
            return 0
        return self.levels if self.upgrading_team == team else -self.levels


class Compact:
    """A 打滚子 play-phase position as flat arrays (see the module docstring)."""

    __slots__ = ("dealer", "dry_pot", "hands", "kitty", "last_winner", "leader", "live", "ncls",
                 "points", "tables", "tl", "tn", "trick")

    def __init__(self, tables: Tables, hands: Sequence[Sequence[int]], kitty: Sequence[Card],
                 dealer: int, leader: int, trick: Sequence[Sequence[Card]] = (),
                 points: Sequence[int] = (0, 0), last_winner: int = -1, *,
                 dry_pot: bool = False, live: bool = False) -> None:
        self.tables = tables
        cls = tables.cls
        self.hands = [0] * (4 * NT)
        self.ncls = [0] * (4 * NCLS)
        for s in range(4):
            for c in range(NT):
                k = hands[s][c]
                if k:
                    self.hands[s * NT + c] = k
                    self.ncls[s * NCLS + cls[c]] += k
        self.kitty = list(kitty)
        self.dealer = dealer
        self.leader = leader
        self.trick = [-1] * 12
        self.tl = len(trick)
        self.tn = len(trick[0]) if trick else 0
        for j, play in enumerate(trick):
            for i, c in enumerate(play):
                self.trick[j * 3 + i] = c
        self.points = [points[0], points[1]]
        self.last_winner = last_winner
        self.dry_pot = dry_pot
        self.live = live

    def copy(self) -> Compact:
        new = Compact.__new__(Compact)
        new.tables = self.tables
        new.hands = list(self.hands)
        new.ncls = list(self.ncls)
        new.kitty = self.kitty
        new.dealer = self.dealer
        new.leader = self.leader
        new.trick = list(self.trick)
        new.tl = self.tl
        new.tn = self.tn
        new.points = list(self.points)
        new.last_winner = self.last_winner
        new.dry_pot = self.dry_pot
        new.live = self.live
        return new

    # -------------------------------------------------------------- reading
    @property
    def to_play(self) -> int:
        return (self.leader + self.tl) % 4

    @property
    def is_over(self) -> bool:
        return self.tl == 0 and not any(self.hands)

    def hand(self, seat: int) -> list[int]:
        return self.hands[seat * NT:(seat + 1) * NT]

    def trick_plays(self) -> list[tuple[Card, ...]]:
        return [tuple(self.trick[j * 3 + i] for i in range(self.tn)) for j in range(self.tl)]

    # ------------------------------------------------------------- the rules
    def legal(self, seat: int | None = None) -> list[tuple[Card, ...]]:
        """Every legal play of the seat to act, as sorted tuples (docs/rules.md A7)."""
        s = self.to_play if seat is None else seat
        hand = self.hand(s)
        if self.tl == 0:
            return [(c,) * k for c in range(NT) for k in range(1, min(hand[c], 3) + 1)]
        cls = self.tables.cls
        led = cls[self.trick[0]]
        n = self.tn
        mine = [(c, hand[c]) for c in range(NT) if hand[c] and cls[c] == led]
        held = sum(k for _, k in mine)
        if held < n:
            fixed = tuple(c for c, k in mine for _ in range(k))
            others = [(c, hand[c]) for c in range(NT) if hand[c] and cls[c] != led]
            return sorted({tuple(sorted(fixed + rest)) for rest in _multisets(others, n - held)})
        out = []
        pair = any(k == 2 for _, k in mine)
        triple = any(k == 3 for _, k in mine)
        for play in _multisets(mine, n):
            distinct = len(set(play))
            if not self.live and n == 2 and pair and distinct != 1:
                continue
            if not self.live and n == 3 and triple and distinct != 1:
                continue
            if not self.live and n == 3 and not triple and pair and distinct == 3:
                continue
            out.append(play)
        return sorted(out)

    def winner_so_far(self) -> int:
        """The seat whose play wins the trick in progress (or -1 before the lead)."""
        if self.tl == 0:
            return -1
        j, _, _ = k_best(self.trick, self.tl, self.tn, self.tables.cls, self.tables.power)
        return (self.leader + j) % 4

    def play(self, cards: Sequence[Card]) -> int | None:
        """Apply a play of the seat to act (not validated); returns the trick's winner when
        it completes the trick, else None."""
        s = self.to_play
        cls = self.tables.cls
        if self.tl == 0:
            self.tn = len(cards)
        for i, c in enumerate(cards):
            self.hands[s * NT + c] -= 1
            self.ncls[s * NCLS + cls[c]] -= 1
            self.trick[self.tl * 3 + i] = c
        self.tl += 1
        if self.tl < 4:
            return None
        j, _, _ = k_best(self.trick, 4, self.tn, cls, self.tables.power)
        w = (self.leader + j) % 4
        pts = sum(POINTS[self.trick[q * 3 + i]] for q in range(4) for i in range(self.tn))
        self.points[w % 2] += pts
        self.last_winner = w
        self.leader = w
        self.tl = 0
        self.trick = [-1] * 12
        return w

    def outcome(self) -> Outcome:
        """A8 for the finished hand (``is_over`` must be true)."""
        ateam = 1 - self.dealer % 2
        kou = self.last_winner % 2 == ateam
        kitty_pts = sum(POINTS[c] for c in self.kitty)
        score = self.points[ateam] + (2 * kitty_pts if kou else 0)
        jl = 0 if self.dry_pot else 2 * self.kitty.count(BJ) + self.kitty.count(LJ)
        out = scoring.gunzi_outcome(score, kou, jl)
        team = None
        if out.upgrading_team_is_attackers is not None:
            team = ateam if out.upgrading_team_is_attackers else 1 - ateam
        return Outcome((self.points[0], self.points[1]), self.last_winner, score, kou,
                       out.attackers_take, team, out.levels)

    # -------------------------------------------------------------- the policy
    def policy_play(self, bk: Backend | None = None) -> tuple[Card, ...]:
        """The kernel policy's play for the seat to act."""
        bk = bk or _PYTHON
        cls, power, pts, mem, mlen, _ = _tables_as(bk, self.tables)
        H = bk.array(self.hands)
        NC = bk.array(self.ncls)
        OUT = bk.array([-1, -1, -1])
        s = self.to_play
        if self.tl == 0:
            n = bk.lead(H, NC, cls, power, pts, mem, mlen, s, OUT)
        else:
            n = self.tn
            bk.follow(H, NC, cls, power, pts, mem, mlen, s, bk.array(self.trick), self.tl,
                      self.tn, self.leader, int(self.live), OUT)
        return tuple(sorted(int(OUT[i]) for i in range(n)))

    def play_out(self, bk: Backend | None = None, record: bool = False
                 ) -> tuple[Outcome, list[tuple[int, tuple[Card, ...]]]]:
        """Play the rest of the hand with the kernel policy (on a copy of the arrays)."""
        bk = bk or _PYTHON
        if self.is_over:
            return self.outcome(), []
        cls, power, pts, mem, mlen, _ = _tables_as(bk, self.tables)
        cap = 4 * 39 * 3 + 8 if record else 1
        MV = bk.array([0] * (4 * cap))
        p0, p1, lastw, nm = bk.play_out(
            bk.array(self.hands), bk.array(self.ncls), cls, power, pts, mem, mlen,
            bk.array(self.trick), bk.array([-1, -1, -1]), MV, self.leader, self.tl, self.tn,
            self.points[0], self.points[1], self.last_winner, int(self.live), int(record))
        end = self.copy()
        end.points = [int(p0), int(p1)]
        end.last_winner = int(lastw)
        end.hands = [0] * (4 * NT)
        end.ncls = [0] * (4 * NCLS)
        end.tl = 0
        moves: list[tuple[int, tuple[Card, ...]]] = []
        if record:
            for q in range(int(nm)):
                cards = tuple(sorted(int(MV[q * 4 + 1 + i]) for i in range(3)
                                     if MV[q * 4 + 1 + i] >= 0))
                moves.append((int(MV[q * 4]), cards))
        return end.outcome(), moves


def _multisets(avail: Sequence[tuple[int, int]], k: int) -> list[tuple[int, ...]]:
    """Distinct multisets of k cards from (card, count) pairs, as sorted tuples."""
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, acc: tuple[int, ...]) -> None:
        if left == 0:
            out.append(acc)
            return
        if i == len(avail):
            return
        c, m = avail[i]
        for take in range(min(m, left), -1, -1):
            rec(i + 1, left - take, acc + (c,) * take)

    rec(0, k, ())
    return out


def compact_of(match: Any) -> Compact:
    """The compact position of a 打滚子 :class:`~gunzi.engine.match.Match` in its play phase
    (full information: for tests and for engine-side tools)."""
    t = tables_for(match.level, match.trump, match.rules.permanent_twos)
    last = match.tricks[-1]["winner"] if match.tricks else -1
    return Compact(t, match.hands, match.kitty, match.dealer, match.leader,
                   [p for _, p in match.trick], match.points, last, dry_pot=match.dry_pot,
                   live=match.live)


def random_play_out(pos: Compact, rng: random.Random) -> Outcome:
    """Play the rest of the hand uniformly at random over the compact legal plays."""
    p = pos.copy()
    while not p.is_over:
        p.play(rng.choice(p.legal()))
    return p.outcome()
