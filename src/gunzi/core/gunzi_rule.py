"""The rule bot's 打滚子 card play on the play core, with card memory kept per play.

:func:`gunzi.bots.rule_play.rule_play` rebuilds its card memory (``rule_core.Odds``:
played cards, shown voids and shape voids, unseen counts) from every finished trick
at every call, which is most of a search bot's rollout time. Here the public part of
that memory is a :class:`Memory` updated by :meth:`Memory.note` as each play is made;
what one seat sees on top of it (its own hand and, if it knows it, the kitty) is read
from the :class:`~gunzi.core.gunzi_play.GunziPlay` counts when that seat decides.
:func:`choose` then scores the same candidate plays with the same formulas as the rule
bot (``rule_core.Params`` weights, mirrored below as constants), so it makes the same
play from the same information: ``tests/core/test_gunzi_rule.py`` checks that decision
by decision against ``rule_play`` and that every play is legal for the engine.

Each seat sees only what it would see at the table: its own hand, every play made,
the hand sizes, and the kitty only when ``kitty_public`` or it is the dealer. Written
for mypyc like the rest of the core (``make fast``): the compiled and pure builds play
identically.
"""

from __future__ import annotations

from gunzi.core.gunzi_play import NT, GunziPlay
from gunzi.engine.cards import BJ, LJ, POINTS
from gunzi.engine.order import TRUMP

NCLS = 5
_PTS: list[int] = list(POINTS)
# rule_core.Params() defaults (tests/core/test_gunzi_rule.py checks they agree).
TEMPO = 1.5
LEAD_COST = 0.5
PULL_BONUS = 2.5
VOID_LEAD_BONUS = 0.6
RESERVE_STAKE = 40.0
POINT_SHARE = 0.55
PARTNER_HELP = 0.3
RISK = 1.5
LEAD_RISK = 1.5
POINT_KEEP = 0.35
SIDE_KV = 3.5
CASH = 1.0
TRUMP_KV = 12.0
LATER_PARTNER = 0.6
_WORTH: list[float] = [0.0, 0.0, 2.0, 3.5]  # structure of a held single, pair, triple
# Keep values by unseen stronger copies (at most 162), as rule_core.Odds._keep_value.
_KV_TRUMP: list[float] = [2.0 + TRUMP_KV * 0.8**hu for hu in range(170)]
_KV_SIDE: list[float] = [SIDE_KV * 0.55**hu for hu in range(170)]
_DIP: list[float] = [0.8**hu for hu in range(170)]
_POINT_CARDS: list[int] = [c for c in range(NT) if _PTS[c]]
_DECK_POINTS = sum(_PTS)


class Memory:
    """The public card memory of one hand's play phase: copies of each card played, and
    per seat and suit class the voids and (死棒) shape voids its follows have shown."""

    __slots__ = ("dealer", "decks", "kitty", "kitty_n", "kitty_points", "kitty_public",
                 "kitty_size", "nopair", "notriple", "played", "played_n", "played_points",
                 "void")

    def __init__(self, kitty: list[int], dealer: int, kitty_public: bool,
                 decks: int = 3, kitty_size: int = 6) -> None:
        """``kitty``: the final kitty's counts (54), seen by the dealer, and by everyone if
        ``kitty_public``."""
        self.played = [0] * NT
        self.played_n = 0  # cards played, and their points (totals of ``played``)
        self.played_points = 0
        self.void = [0] * (4 * NCLS)
        self.nopair = [0] * (4 * NCLS)
        self.notriple = [0] * (4 * NCLS)
        self.kitty = kitty
        self.kitty_n = 0
        self.kitty_points = 0
        self.set_kitty(kitty)
        self.dealer = dealer
        self.kitty_public = kitty_public
        self.decks = decks
        self.kitty_size = kitty_size

    def copy(self) -> Memory:
        new = Memory(self.kitty, self.dealer, self.kitty_public, self.decks, self.kitty_size)
        new.played = list(self.played)
        new.played_n = self.played_n
        new.played_points = self.played_points
        new.void = list(self.void)
        new.nopair = list(self.nopair)
        new.notriple = list(self.notriple)
        return new

    def set_kitty(self, kitty: list[int]) -> None:
        """The final kitty's counts (a rollout's sampled kitty)."""
        self.kitty = kitty
        n = 0
        pts = 0
        for c in range(NT):
            n += kitty[c]
            pts += kitty[c] * _PTS[c]
        self.kitty_n = n
        self.kitty_points = pts

    def note_play(self, game: GunziPlay, cards: tuple[int, ...]) -> None:
        """Remember the play ``cards`` the seat to act in ``game`` is about to make."""
        self.note(game.turn, cards, game.lead_n if game.trick else 0, game.led, game.cls,
                  game.live)

    def note(self, seat: int, cards: tuple[int, ...], n: int, led: int, cls: list[int],
             live: bool) -> None:
        """Remember ``seat``'s play ``cards``: a lead when ``n`` is 0, else a follow to an
        ``n``-card lead of class ``led`` (a short follow shows a void; under 死棒 a follow
        without a pair or triple in class shows the seat holds none)."""
        played = self.played
        for c in cards:
            played[c] += 1
            self.played_n += 1
            self.played_points += _PTS[c]
        if n == 0:
            return
        k = 0
        for c in cards:
            if cls[c] == led:
                k += 1
        i = seat * NCLS + led
        if k < n:
            self.void[i] = 1
        elif n >= 2 and not live:
            if n == 2:
                if cards[0] != cards[1]:
                    self.nopair[i] = 1
            else:
                a = cards[0]
                b = cards[1]
                d = cards[2]
                distinct = 1 + (1 if b != a else 0) + (1 if d != a and d != b else 0)
                if distinct > 1:
                    self.notriple[i] = 1
                    if distinct == 3:
                        self.nopair[i] = 1


def p_at_least(u: int, k: int, p: float) -> float:
    """P(Binomial(u, p) >= k) for u <= 3 (the rule bot's odds of a pair or triple)."""
    if u < k:
        return 0.0
    q = 1.0 - p
    if k == 1:
        return 1.0 - q**u
    if k == 2:
        return p * p if u == 2 else 3 * p * p * q + p**3
    return p**3


class _Seat:
    """The seat to act's odds for one decision: ``rule_core.Odds`` and the rule bot's
    scoring (``rule_play._Player``) on counts, its memory read from :class:`Memory`.
    What a suit class needs (unseen copies, stronger copies, cards held) is worked out
    the first time the class is asked about (:meth:`klass`)."""

    __slots__ = ("class_unseen", "cls", "dealer", "density", "game", "groups", "hand",
                 "held_class", "higher", "holders", "known", "me", "mem", "my_size",
                 "partner", "pow", "pull", "ready", "reserve", "sizes", "stake", "unseen")

    def __init__(self, game: GunziPlay, mem: Memory) -> None:
        self.game = game
        self.mem = mem
        me = game.turn
        self.me = me
        self.partner = (me + 2) % 4
        self.dealer = mem.dealer
        self.cls = game.cls
        self.pow = game.pow
        base = me * NT
        hand = game.h[base:base + NT]
        self.hand = hand
        sizes = [game.cards_left] * 4
        for s in game.trick_seats:
            sizes[s] -= game.lead_n
        self.sizes = sizes
        self.my_size = sizes[me]
        known = mem.kitty_public or me == mem.dealer
        self.known = known
        # Totals of the unseen copies and their points (every count is >= 0: the hands,
        # the plays and the kitty hold each card's copies exactly once).
        total = mem.decks * NT - mem.played_n - self.my_size
        points = mem.decks * _DECK_POINTS - mem.played_points
        for c in _POINT_CARDS:
            points -= hand[c] * _PTS[c]
        if known:
            total -= mem.kitty_n
            points -= mem.kitty_points
        self.density = points / total if total else 0.0
        self.unseen = [0] * NT
        self.higher = [0] * NT
        self.class_unseen = [0] * NCLS
        self.held_class = [0] * NCLS
        self.ready = [False] * NCLS
        self.holders = [-1] * NCLS
        self.groups: dict[int, float] = {}
        self.pull = 0.0
        self.stake = self._stake(known)
        self.reserve: list[int] = []

    def klass(self, k: int) -> None:
        """Unseen copies of class ``k``'s cards, the stronger ones for each, the class
        total, and the cards of it held."""
        if self.ready[k]:
            return
        self.ready[k] = True
        mem = self.mem
        known = self.known
        kitty = mem.kitty
        played = mem.played
        decks = mem.decks
        hand = self.hand
        unseen = self.unseen
        higher = self.higher
        power = self.pow
        cards = self.game.members[k]  # weakest first
        run = 0
        held = 0
        i = len(cards) - 1
        while i >= 0:
            p = power[cards[i]]
            group = 0
            while i >= 0 and power[cards[i]] == p:
                c = cards[i]
                higher[c] = run
                u = decks - hand[c] - played[c]
                if known:
                    u -= kitty[c]
                if u < 0:
                    u = 0
                unseen[c] = u
                group += u
                held += hand[c]
                i -= 1
            run += group
        self.class_unseen[k] = run
        self.held_class[k] = held

    # ------------------------------------------------------------ the stakes
    def _stake(self, known: bool) -> float:
        """Worth of the last trick: the reserve stake plus the kitty's points doubled and
        its jokers (打滚子's 抠底, A8)."""
        if known:
            kitty = self.mem.kitty
            kp = float(self.mem.kitty_points)
            jokers = 2 * kitty[BJ] + kitty[LJ]
        else:
            kp = self.density * self.mem.kitty_size
            jokers = 0
        return RESERVE_STAKE + 2.0 * kp + 12.0 * jokers

    def _reserve(self) -> list[int]:
        """Copies of the seat's top trumps kept for the last trick."""
        self.klass(TRUMP)
        res = [0] * NT
        want = 2 if self.stake >= 55 else 1
        hand = self.hand
        higher = self.higher
        tops = self.game.members[TRUMP]
        for i in range(len(tops) - 1, -1, -1):
            c = tops[i]
            if not hand[c]:
                continue
            if want <= 0 or higher[c] > 2 * want:
                break
            k = min(want, hand[c])
            res[c] = k
            want -= k
        return res

    def kv(self, c: int) -> float:
        k = self.cls[c]
        self.klass(k)
        if k == TRUMP:
            return _KV_TRUMP[self.higher[c]]
        return _KV_SIDE[self.higher[c]]

    def break_cost(self, c: int, used: int) -> float:
        """Structure lost by playing ``used`` copies of ``c`` out of the held ones."""
        held = self.hand[c]
        if held < 2:
            return 0.0
        scale = 1.0 + self.kv(c) / 4.0
        left = held - used
        return (_WORTH[held] - _WORTH[left if left > 0 else 0]) * scale

    def spent(self, play: tuple[int, ...], factor: float) -> float:
        """Keep value of the cards ``play`` (sorted) spends, and the reserve's penalty."""
        cost = 0.0
        pen = 0.0
        if not self.reserve:
            self.reserve = self._reserve()
        count_all = len(play) < self.my_size
        hand = self.hand
        i = 0
        n = len(play)
        while i < n:
            c = play[i]
            k = 1
            while i + k < n and play[i + k] == c:
                k += 1
            i += k
            cost += k * self.kv(c) + self.break_cost(c, k)
            r = self.reserve[c]
            if count_all and r:
                dip = k - (hand[c] - r)
                if dip > 0:
                    pen += dip * self.stake * 0.6 * _DIP[self.higher[c]]
        return factor * cost + pen

    # ------------------------------------------------------------ odds
    def share(self, seat: int, k: int) -> float:
        """Chance that one unseen card of class ``k`` lies in ``seat``'s hand."""
        if seat == self.me or self.mem.void[seat * NCLS + k]:
            return 0.0
        h = self.holders[k]
        if h < 0:
            h = 0 if self.known else self.mem.kitty_size  # the kitty, when hidden
            void = self.mem.void
            for s in range(4):
                if s != self.me and not void[s * NCLS + k]:
                    h += self.sizes[s]
            self.holders[k] = h
        return self.sizes[seat] / h if h else 0.0

    def p_void(self, seat: int, k: int) -> float:
        if self.mem.void[seat * NCLS + k] or self.sizes[seat] == 0:
            return 1.0
        self.klass(k)
        return (1.0 - self.share(seat, k)) ** self.class_unseen[k]

    def p_group(self, seat: int, k: int, above: int, size: int) -> float:
        """Chance ``seat`` holds ``size`` identical cards of class ``k`` above ``above``."""
        key = ((seat * NCLS + k) * 256 + above + 1) * 4 + size
        got = self.groups.get(key)
        if got is not None:
            return got
        out = 0.0
        i = seat * NCLS + k
        mem = self.mem
        if not (mem.void[i] or self.sizes[seat] < size or (size == 2 and mem.nopair[i])
                or (size == 3 and mem.notriple[i])):
            sh = self.share(seat, k)
            self.klass(k)
            unseen = self.unseen
            power = self.pow
            cards = self.game.members[k]
            if size == 1:
                n = 0
                for c in cards:
                    if power[c] > above:
                        n += unseen[c]
                out = 1.0 - (1.0 - sh) ** n
            else:
                q = 1.0
                for j in range(len(cards) - 1, -1, -1):
                    c = cards[j]
                    if power[c] <= above:
                        break
                    u = unseen[c]
                    if u >= size:
                        q *= 1.0 - p_at_least(u, size, sh)
                out = 1.0 - q
        self.groups[key] = out
        return out

    def p_beat(self, seat: int, led: int, wcls: int, size: int, top: int) -> float:
        """Chance that ``seat`` (yet to play) beats a winning ``size``-card play of class
        ``wcls`` and power ``top``."""
        if self.sizes[seat] == 0:
            return 0.0
        if wcls == led:
            pb = self.p_group(seat, led, top, size)
            if led != TRUMP:
                pv = self.p_void(seat, led)
                if pv > 0.0:
                    pb = 1.0 - (1.0 - pb) * (1.0 - pv * self.p_group(seat, TRUMP, -1, size))
            return pb
        if wcls == TRUMP:
            return self.p_void(seat, led) * self.p_group(seat, TRUMP, top, size)
        return 0.0

    # ------------------------------------------------------------ leading
    def lead(self) -> tuple[int, ...]:
        hand = self.hand
        if self.my_size == 1:
            for c in range(NT):
                if hand[c]:
                    return _ONE[c]
        best: tuple[int, ...] = ()
        best_v = 0.0
        for c in range(NT):
            k = hand[c]
            for n in range(1, k + 1):
                play = _ONE[c] if n == 1 else _TWO[c] if n == 2 else _THREE[c]
                v = self.score_lead(c, n, play)
                if not best or v > best_v + 1e-9:
                    best = play
                    best_v = v
        return best

    def score_lead(self, c: int, n: int, play: tuple[int, ...]) -> float:
        k = self.cls[c]
        self.klass(k)
        top = self.pow[c]
        me = self.me
        p_hold = 1.0
        p_hold *= 1.0 - self.p_beat((me + 1) % 4, k, k, n, top)
        p_hold *= 1.0 - self.p_beat((me + 3) % 4, k, k, n, top)
        partner = self.partner
        q = 0.0
        if self.sizes[partner]:
            q = PARTNER_HELP
            if k != TRUMP:
                q += 0.4 * self.p_void(partner, k) * (1.0 - self.p_void(partner, TRUMP))
        w = p_hold + (1.0 - p_hold) * q
        fut = n * 3 * POINT_SHARE * self.density
        if n >= self.my_size:
            fut += self.stake
        keep = w - LEAD_RISK * (1.0 - w) - POINT_KEEP
        value = (2.0 * w - 1.0) * fut + keep * (n * _PTS[c]) + w * TEMPO
        spent = self.spent(play, LEAD_COST)
        if k == TRUMP:
            value -= spent
            value += self.pull_bonus() * n
        else:
            kvs = self.kv(c) * n
            value -= spent - LEAD_COST * kvs * CASH * p_hold
            held = self.held_class[k]
            if held <= 2 and held == n:
                value += VOID_LEAD_BONUS
            elif held <= 3:
                value += VOID_LEAD_BONUS * 0.5
        return value

    def pull_bonus(self) -> float:
        """Per card worth of a trump lead: drawing the opponents' trumps while ahead."""
        if self.pull != 0.0:
            return self.pull
        me = self.me
        self.klass(TRUMP)
        mine = self.held_class[TRUMP]
        unseen = self.class_unseen[TRUMP]
        e1 = unseen * self.share((me + 1) % 4, TRUMP)
        e2 = unseen * self.share((me + 3) % 4, TRUMP)
        most = e1 if e1 >= e2 else e2
        if most < 0.5:
            out = -1.0  # nothing left to draw
        else:
            lead_team = self.dealer % 2 == me % 2 if self.dealer >= 0 else False
            need = 1.1 if lead_team else 1.6
            if mine >= need * most and mine >= 3:
                out = PULL_BONUS * (1.3 if lead_team else 1.0)
            else:
                out = -0.5
        self.pull = out
        return out

    # ------------------------------------------------------------ following
    def pick(self, pool: list[int], cards: list[int], k: int, feed: bool,
             exclude: int) -> tuple[int, ...]:
        """``k`` card copies among ``cards`` (held ``pool[c]`` times, two copies of
        ``exclude`` set aside): the cheapest to lose, or the best to feed."""
        keys: list[float] = []
        ids: list[int] = []
        w = -1.0 if feed else 0.6
        hand = self.hand
        for c in cards:
            m = pool[c]
            if c == exclude:
                m -= 2
            if m <= 0:
                continue
            base = self.kv(c)
            for j in range(m):
                used = (hand[c] - m) + j
                brk = self.break_cost(c, used + 1) - self.break_cost(c, used)
                keys.append(base + brk + w * _PTS[c])
                ids.append(c)
        out: list[int] = []
        taken = [False] * len(keys)
        for _ in range(k):
            bi = -1
            for i in range(len(keys)):
                if taken[i]:
                    continue
                if bi < 0 or keys[i] < keys[bi] or (keys[i] == keys[bi] and ids[i] < ids[bi]):
                    bi = i
            if bi < 0:
                break
            taken[bi] = True
            out.append(ids[bi])
        return tuple(out)

    def follow(self) -> tuple[int, ...]:
        game = self.game
        n = game.lead_n
        led = game.led
        hand = self.hand
        members = game.members[led]
        self.klass(led)
        held = self.held_class[led]
        cands: list[tuple[int, ...]] = []
        if held >= n:
            mine = [c for c in members if hand[c]]
            if n == 1:
                cands = [_ONE[c] for c in mine]
            else:
                cands = [(c,) * n for c in mine if hand[c] >= n]
                cands.append(self.pick(hand, mine, n, False, -1))
                cands.append(self.pick(hand, mine, n, True, -1))
                if n == 3:
                    for c in mine:
                        if hand[c] >= 2:
                            cands.append((c, c, *self.pick(hand, mine, 1, False, c)))
                            cands.append((c, c, *self.pick(hand, mine, 1, True, c)))
                live = game.live
                cands = [p for p in cands if len(p) == n and (live or self._shape_ok(p, mine))]
        else:
            fixed: tuple[int, ...] = ()
            for c in members:
                for _ in range(hand[c]):
                    fixed += (c,)
            cls = self.cls
            rest = [c for c in range(NT) if hand[c] and cls[c] != led]
            need = n - held
            cands = [fixed + self.pick(hand, rest, need, False, -1),
                     fixed + self.pick(hand, rest, need, True, -1)]
            if held == 0 and led != TRUMP:
                for c in game.members[TRUMP]:
                    if hand[c] >= n:
                        cands.append((c,) * n)
        # The distinct plays, in order (one alone needs no scoring).
        plays: list[tuple[int, ...]] = []
        for cand in cands:
            play = tuple(sorted(cand)) if n > 1 else cand
            if play not in plays:
                plays.append(play)
        if len(plays) == 1:
            return plays[0]
        # The trick so far: its winning play's seat, class and power, and its points.
        trick = game.trick
        cls = self.cls
        power = self.pow
        bi = 0
        bc = led
        bp = power[trick[0][0]]
        pts = 0
        for i in range(len(trick)):
            p = trick[i]
            f = p[0]
            same = True
            for c in p:
                pts += _PTS[c]
                if c != f:
                    same = False
            if i == 0 or not same:
                continue
            if cls[f] == bc:
                if power[f] > bp:
                    bi = i
                    bp = power[f]
            elif cls[f] == TRUMP and led != TRUMP:
                bi = i
                bc = TRUMP
                bp = power[f]
        wseat = game.trick_seats[bi]
        best: tuple[int, ...] = ()
        best_v = 0.0
        for play in plays:
            v = self.score_follow(play, led, n, wseat, bc, bp, pts)
            if not best or v > best_v + 1e-9:
                best = play
                best_v = v
        return best

    def _shape_ok(self, play: tuple[int, ...], mine: list[int]) -> bool:
        """死棒 shape obligations inside the led class (gunzi_tricks.follow_error)."""
        hand = self.hand
        has_pair = False
        has_triple = False
        for c in mine:
            if hand[c] == 2:
                has_pair = True
            elif hand[c] == 3:
                has_triple = True
        a = play[0]
        b = play[1]
        if len(play) == 2:
            return not (has_pair and a != b)
        d = play[2]
        distinct = 1 + (1 if b != a else 0) + (1 if d != a and d != b else 0)
        if has_triple and distinct != 1:
            return False
        return not (not has_triple and has_pair and distinct == 3)

    def score_follow(self, play: tuple[int, ...], led: int, n: int, wseat: int, bc: int,
                     bp: int, pts: int) -> float:
        me = self.me
        f = play[0]
        same = True
        ppts = 0
        for c in play:
            ppts += _PTS[c]
            if c != f:
                same = False
        wcls = bc
        wtop = bp
        if same:
            c = self.cls[f]
            if (c == bc and self.pow[f] > bp) or (c != bc and c == TRUMP and led != TRUMP):
                wseat = me
                wcls = c
                wtop = self.pow[f]
        left = 3 - len(self.game.trick)  # seats still to play after this one
        partner = self.partner
        if wseat % 2 == me % 2:
            w = 1.0
            for i in range(1, left + 1):
                s = (me + i) % 4
                if s != partner:
                    w *= 1.0 - self.p_beat(s, led, wcls, n, wtop)
        else:
            partner_later = False
            for i in range(1, left + 1):
                if (me + i) % 4 == partner:
                    partner_later = True
            w = LATER_PARTNER * self.p_beat(partner, led, wcls, n, wtop) if partner_later else 0.0
        fut = n * left * POINT_SHARE * self.density
        if n >= self.my_size:
            fut += self.stake
        keep = w - RISK * (1.0 - w) - POINT_KEEP
        value = (2.0 * w - 1.0) * (pts + fut) + keep * ppts
        value += w * TEMPO
        return value - self.spent(play, 1.0)


_ONE: list[tuple[int, ...]] = [(c,) for c in range(NT)]
_TWO: list[tuple[int, ...]] = [(c, c) for c in range(NT)]
_THREE: list[tuple[int, ...]] = [(c, c, c) for c in range(NT)]


def choose(game: GunziPlay, mem: Memory) -> tuple[int, ...]:
    """The rule bot's play (sorted card ids) for the seat to act in ``game``."""
    seat = _Seat(game, mem)
    return seat.follow() if game.trick else seat.lead()


def play_out(game: GunziPlay, mem: Memory) -> GunziPlay:
    """Play ``game`` to its end with :func:`choose` for every seat (``game`` and ``mem``
    change in place)."""
    while game.cards_left > 0:
        cards = choose(game, mem)
        mem.note_play(game, cards)
        game.play(cards)
    return game
