"""Every run waits its turn: at most a few at a time per process, heavy pages one at a time, in a fair order.

Thirty visitors opening the heaviest Heads or Embeddings link at once kept a Playground visitor waiting 15-22 s
(every run a thread, all sharing one interpreter); ten sockets asking for reruns twice a second froze everyone
(issue 55). So every run, whole or a fragment's, waits for a place as it starts (:func:`run_started`, called by
``ui/server_limits.py`` after the widgets' callbacks and before any of the app's code) and gives it back whatever
ends the run (:func:`run_scope`), its CPU counted. At most :data:`RUNS_AT_ONCE` runs at a time per process, of
which :data:`HEAVY_AT_ONCE` of a page marked ``heavy`` (``ui/navigation.py``), :data:`OVER_BUDGET_AT_ONCE` of
sessions over their budget and :data:`CLIENT_AT_ONCE` of one client's; the others wait, told so after
:data:`NOTE_AFTER_S`.

The line is fair (:class:`Turns`): by client, then session. A client's second waiting run is served after every
other client's first, so a client with ten sockets waits as one visitor does; of two clients the one that used
less CPU lately goes first (a new visitor before a flooding one); within a client (a class behind one school
address) its sessions take turns in order; and a session that used more than :data:`SESSION_BUDGET_S` CPU seconds
lately (halving every :data:`USAGE_HALF_LIFE_S`) waits behind every other run. That budget is what tells a class
(many sessions, each modest) from one attacker (many sockets, each flooding). :func:`heavy_turn` remains for a run
that did not wait as it started (the first of the process). Plain Python (threads), tested without Streamlit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator

RUNS_AT_ONCE = 2  # runs of any page at once per process (each a thread sharing one interpreter with the event loop)
CLIENT_AT_ONCE = 1  # of which one client's (an address: one visitor, or a class behind one school address); two of a
# flooding client's runs at once left the event loop a third of the interpreter: a page's GET 0.25 s (median) and
# 1.9 s (slowest) under a Playground flood beside other work, against 0.05 and 0.6 s (docs/reliability.md)
HEAVY_AT_ONCE = 1  # heavy page runs at once per process (2: a Playground open during a crowd 0.85-1.54 s; 1: 0.64-1.18 s)
NOTE_EVERY_S = 2.0  # how often a waiting run may update its note
NOTE_AFTER_S = 1.0  # a run waiting as it starts says so only after this long (most waits are shorter)
POLL_S = 0.25  # how often a waiting run asks Streamlit whether its visitor moved on
USAGE_HALF_LIFE_S = 10.0  # a client's or session's CPU seconds count half after this long (Usage)
SESSION_BUDGET_S = 3.0  # a session whose CPU seconds so counted are over this waits behind all others (Turns)
OVER_BUDGET_AT_ONCE = 1  # and such sessions' runs take at most this many of the RUNS_AT_ONCE places
LONG_WAIT_S = 10.0  # a run that waits this long for its place says so in the server's log, with the line's state
LOG = logging.getLogger("selfattn.turns")

class Usage:
    """CPU seconds used, by key (a client, a session), each halving every ``half_life`` seconds: what a key used
    long ago counts less than what it used just now. At most ``most`` keys are kept (the least used go first)."""

    def __init__(self, half_life: float = USAGE_HALF_LIFE_S, most: int = 4096):
        self.half_life, self.most = half_life, most
        self._used: dict[tuple[str, str], tuple[float, float]] = {}  # key -> (seconds, when they were counted)

    def __len__(self) -> int:
        return len(self._used)

    def of(self, key: tuple[str, str], now: float | None = None) -> float:
        found = self._used.get(key)
        if found is None:
            return 0.0
        seconds, at = found
        now = time.monotonic() if now is None else now
        return seconds * 0.5 ** (max(0.0, now - at) / self.half_life)

    def add(self, key: tuple[str, str], seconds: float, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._used[key] = (self.of(key, now) + max(0.0, seconds), now)
        if len(self._used) > self.most:
            for old in sorted(self._used, key=lambda k: self.of(k, now))[:len(self._used) - self.most // 2]:
                del self._used[old]


class Turns:
    """Places for at most ``at_once`` runs, ``heavy_at_once`` of them heavy, given in a fair order.

    The line is served in the order (over budget, rank, client's usage, arrival):

    - *over budget*: a session that used more than ``budget_s`` CPU seconds lately (:class:`Usage`) waits behind
      every session that did not: a socket flooding reruns soon is, a visitor reading and editing rarely is;
    - *rank*: a client's runs in line are ranked in order of arrival (its sessions over budget last), and its
      rank-1 run is served only after every other client's rank-0 run, so a client with ten sockets waits as one
      visitor does; a session holds one entry, so the sessions of one client (a class behind one school address)
      take turns;
    - *usage*: of two clients' runs of the same rank, the client that used less CPU lately goes first (a new
      visitor before a flooding one), then the first to come.

    A run is served when it is the first in that order whose place fits (a heavy run waiting for the heavy place
    does not hold up the light runs behind it; a client holds at most ``client_at_once`` places, so a client's second
    run leaves a free place to the next client's). A session holds one entry: its new run takes the place of its
    old one (:meth:`join`), whose :meth:`try_enter` then answers None.
    """

    def __init__(self, at_once: int, heavy_at_once: int | None = None, *, budget_s: float | None = None,
                 usage: Usage | None = None, client_at_once: int | None = None):
        self.at_once = at_once
        self.client_at_once = at_once if client_at_once is None else client_at_once
        self.heavy_at_once = at_once if heavy_at_once is None else heavy_at_once
        self.budget_s = SESSION_BUDGET_S if budget_s is None else budget_s
        self.usage = Usage() if usage is None else usage
        self._cond = threading.Condition()
        self._line: list[tuple[int, str, str, bool]] = []  # (ticket, client, session, heavy), in order of arrival
        self._running = 0
        self._heavy = 0
        self._over = 0  # runs of sessions over budget, which take at most OVER_BUDGET_AT_ONCE places
        self._clients: dict[str, int] = {}  # client -> its runs that hold a place (at most client_at_once each)
        self._entered: dict[int, bool] = {}  # ticket -> whether its session was over budget as it entered
        self._next = 0

    def join(self, client: str, session: str = "", heavy: bool = False) -> int:
        with self._cond:
            self._next += 1
            self._line = [e for e in self._line if not session or e[2] != session]
            self._line.append((self._next, client, session, heavy))
            self._cond.notify_all()
            return self._next

    def _order(self) -> list[tuple[int, str, str, bool]]:
        return [entry for _, entry in self._keyed()]

    def _keyed(self) -> list[tuple[tuple, tuple[int, str, str, bool]]]:
        """The line in the order it is served, each entry with its key (whose first item: over budget)."""
        now = time.monotonic()

        def within(entry):
            used = self.usage.of(("session", entry[2]), now) if entry[2] else 0.0
            return used > self.budget_s, entry[0], used

        by_client: dict[str, list] = {}
        for entry in self._line:
            by_client.setdefault(entry[1], []).append(entry)
        keyed = []
        for client, entries in by_client.items():
            client_used = self.usage.of(("client", client), now)
            for rank, entry in enumerate(sorted(entries, key=within)):
                over, ticket, _ = within(entry)
                keyed.append(((over, rank, client_used, ticket), entry))
        return sorted(keyed)

    def place(self, ticket: int) -> int:
        """``ticket``'s place in the line, 1 first (0: not in it)."""
        with self._cond:
            tickets = [e[0] for e in self._order()]
            return tickets.index(ticket) + 1 if ticket in tickets else 0

    def _fits(self, heavy: bool, over: bool = False, client: str = "") -> bool:
        return (self._running < self.at_once and (not heavy or self._heavy < self.heavy_at_once)
                and (not over or self._over < OVER_BUDGET_AT_ONCE)
                and self._clients.get(client, 0) < self.client_at_once)

    def _take(self, heavy: bool, over: bool = False, client: str = "") -> None:
        self._running += 1
        self._heavy += bool(heavy)
        self._over += bool(over)
        self._clients[client] = self._clients.get(client, 0) + 1

    def try_enter(self, ticket: int, timeout: float) -> bool | None:
        """Take a place if ``ticket`` is next and one is free, waiting at most ``timeout`` s; None when the
        ticket left the line (its session's next run took its place)."""
        with self._cond:
            deadline = time.monotonic() + timeout
            while True:
                keyed = self._keyed()
                mine = next((e for _, e in keyed if e[0] == ticket), None)
                if mine is None:
                    return None
                first = next(((key[0], e) for key, e in keyed if self._fits(e[3], key[0], e[1])), None)
                if first is not None and first[1] is mine:
                    self._line.remove(mine)
                    self._take(mine[3], first[0], mine[1])
                    self._entered[ticket] = first[0]
                    self._cond.notify_all()
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)

    def give_up(self, ticket: int) -> None:
        with self._cond:
            self._line = [e for e in self._line if e[0] != ticket]
            self._cond.notify_all()

    def over_budget(self, ticket: int) -> bool:
        """Whether the run that entered with ``ticket`` was over budget as it did (asked once, as it enters)."""
        with self._cond:
            return self._entered.pop(ticket, False)

    def leave(self, heavy: bool = False, over: bool = False, client: str = "") -> None:
        with self._cond:
            self._running -= 1
            self._heavy -= bool(heavy)
            self._over -= bool(over)
            held = self._clients.get(client, 0) - 1
            if held > 0:
                self._clients[client] = held
            else:
                self._clients.pop(client, None)
            self._cond.notify_all()

    def enter_again(self, heavy: bool = False, over: bool = False, client: str = "") -> None:
        """Take a place again after :meth:`leave`, before the line (the run was already served once)."""
        with self._cond:
            while not self._fits(heavy, over, client):
                self._cond.wait()
            self._take(heavy, over, client)

    def state(self) -> str:
        """The places taken and the line, in words (for the server's log)."""
        with self._cond:
            line = ", ".join(f"#{t} {c} {s[:8]}{' heavy' if h else ''}" for t, c, s, h in self._order())
            return (f"{self._running} of {self.at_once} places taken ({self._heavy} heavy, {self._over} over budget); "
                    f"in line: {line or 'none'}")

    def charge(self, client: str, session: str, seconds: float) -> None:
        """Count ``seconds`` of CPU to the client and the session (the order of the line reads them)."""
        with self._cond:
            self.usage.add(("client", client), seconds)
            if session:
                self.usage.add(("session", session), seconds)


@dataclasses.dataclass(frozen=True)
class Run:
    """A run as it starts, in plain values (``ui/streamlit_hooks.py`` reads them from Streamlit's run context)."""

    session: str
    page_hash: str  # the page it asks for, by Streamlit's hash of its url path
    main_hash: str  # the app's own script: a session's first run asks for its page by name instead
    page_name: str
    fragment: bool  # a fragment's run, not a whole one
    check: Callable[[], None]  # raises when the visitor moved on (Streamlit's yield check)

    def is_of(self, paths: set[str], hashes: set[str]) -> bool:
        """Whether the run is of one of the pages at url ``paths`` (``hashes``: theirs): by hash, or on a session's
        first run by name."""
        return self.page_hash in hashes or (self.page_hash == self.main_hash and self.page_name.strip("/") in paths)


_turns = Turns(RUNS_AT_ONCE, HEAVY_AT_ONCE, client_at_once=CLIENT_AT_ONCE)  # this process's line
_holder = threading.local()  # .place: the _Place this thread's run holds (or None); .run: inside a run (run_scope)


@dataclasses.dataclass
class _Place:
    """A place a thread holds: what it counts against (:meth:`Turns.charge`) and since when."""

    heavy: bool
    client: str
    session: str
    by_run: bool = False  # taken as the run started (every run waits its turn: run_started), not by heavy_turn
    over: bool = False  # its session was over budget as it took it (Turns: such places are few)
    held: bool = True
    cpu_at: float = dataclasses.field(default_factory=time.thread_time)


def _release(place: _Place) -> None:
    """Give ``place`` back (once) and charge the CPU its thread used since it took it."""
    if place.held:
        place.held = False
        _turns.leave(place.heavy, place.over, place.client)
        _turns.charge(place.client, place.session, time.thread_time() - place.cpu_at)


def _wait(waiting: Callable[[int], None], *, heavy: bool, client: str, session: str,
          check: Callable[[], None] = lambda: None, note_after: float = 0.0, by_run: bool = False) -> _Place:
    """Join the line and wait for a place (see :func:`heavy_turn` for ``waiting``); ``check`` is called every
    :data:`POLL_S` while waiting (Streamlit's yield check: it ends the wait of a visitor who moved on); the note is
    said first after ``note_after`` s. Whatever ends the wait, the ticket leaves the line."""
    ticket = _turns.join(client, session, heavy)
    entered = _turns.try_enter(ticket, 0.0)
    said, started, said_at, logged = False, time.monotonic(), -NOTE_EVERY_S, False
    try:
        while not entered:
            check()
            if entered is None:  # this session's newer run took the place of this one, which did not end:
                ticket = _turns.join(client, session, heavy)  # wait again, as the session's newest run
            now = time.monotonic()
            if not logged and now - started >= LONG_WAIT_S:
                logged = True
                LOG.warning("session %s has waited %.0f s for a%s place: %s", session[:8], now - started,
                            " heavy" if heavy else "", _turns.state())
            if now - started >= note_after and now - said_at >= NOTE_EVERY_S:
                said_at, said = now, True
                waiting(_turns.place(ticket))  # a run whose session has moved on stops here (Streamlit's rerun)
            entered = _turns.try_enter(ticket, POLL_S)
    finally:
        if not entered:
            _turns.give_up(ticket)
    place = _Place(heavy, client, session, by_run, _turns.over_budget(ticket))  # held before the call below,
    # which may end the run
    if said:
        try:
            waiting(0)
        except BaseException:
            _release(place)
            raise
    return place


@contextlib.contextmanager
def heavy_turn(waiting: Callable[[int], None], client: str, session: str = "") -> Iterator[None]:
    """Run the body when its turn comes: at most :data:`HEAVY_AT_ONCE` such runs at a time per process, in the
    order of :class:`Turns`, ``client`` and ``session`` counted as :meth:`Turns.join` says. Within a run that
    waited for a heavy place as it started (:func:`run_started`: every run of a heavy page, its fragments'
    included), the body runs at once.

    While it waits, ``waiting(n)`` is called with its place in the line, at most every :data:`NOTE_EVERY_S`
    (the page says so, again each time, even when the place has not changed: a Streamlit call there is what
    lets a visitor who left or changed something end a wait). Then ``waiting`` is called with 0 once, to clear
    what it said. That call too may end the run (the visitor changed something just as its turn came): the
    place is counted as held before it, so that it is given back (else it stays taken for good, and every
    heavy view of the process waits forever; tests/test_server_limits.py).
    """
    held = getattr(_holder, "place", None)
    if held is not None and held.by_run and held.held and held.heavy:
        yield
        return
    if held is not None and held.by_run:
        _release(held)  # the run's light place: given back, to wait for a heavy one
    place = _wait(waiting, heavy=True, client=client, session=session)
    _holder.place = place
    try:
        yield
    finally:
        _release(place)
        _holder.place = held


@contextlib.contextmanager
def outside_heavy_turn() -> Iterator[None]:
    """Give this run's place back while the body runs, and take one again after (waiting if need be).

    For work with a bound of its own that would otherwise hold every heavy view of the process
    up: a benchmark sweep (seconds; one at a time for all replicas, by its lock file).
    """
    place = getattr(_holder, "place", None)
    if place is None or not place.held:
        yield
        return
    _release(place)
    try:
        yield
    finally:
        _turns.enter_again(place.heavy, place.over, place.client)
        place.held, place.cpu_at = True, time.thread_time()


@contextlib.contextmanager
def run_scope() -> Iterator[None]:
    """One run, whole or a fragment's: whatever ends it, the place it took (:func:`run_started`) is given back
    and its CPU counted."""
    _holder.run, _holder.place = True, None
    try:
        yield
    finally:
        place, _holder.run, _holder.place = getattr(_holder, "place", None), False, None
        if place is not None:
            _release(place)


def run_started(*, heavy: bool, client: str, session: str, note: Callable[[int], None],
                check: Callable[[], None]) -> None:
    """As a run's code starts (inside :func:`run_scope`, after the widgets' callbacks): wait for a place, heavy
    or light, before any of the app's code. ``note(n)`` says the place ``n`` in the line once the wait is longer
    than :data:`NOTE_AFTER_S` (0: clear it); ``check`` ends the wait of a visitor who moved on (it raises)."""
    if getattr(_holder, "run", False) and getattr(_holder, "place", None) is None:
        _holder.place = _wait(note, heavy=heavy, client=client, session=session, check=check,
                              note_after=NOTE_AFTER_S, by_run=True)
