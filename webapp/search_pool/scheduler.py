"""The waiting room: which search runs next, and which new ones are refused or shed.

Jobs wait in one lane per priority class and a lane is emptied before the
next one is looked at (ENGINE, then SCORES, then ANALYSIS). Inside a lane the
owners take turns (round-robin between owners, first come first served for
each owner), so one owner with twenty jobs delays another owner's single job
by at most one search, not twenty.

Bounds are on memory, not on work: a job is refused only when its owner, its
game or the whole room already holds too many waiting jobs (checked in that
order, so a flooding client is told first). SCORES jobs are display work and
never refused: past ``scores_limit`` waiting, a new one sheds the oldest.
They do not count against the other bounds. ``sheds`` says when new ones would:
the live scores of a game with quick replies then plan their pass for later rather
than push another game's out.

Engine moves and analyses are counted apart (per owner, per game and in all:
``queue_limit`` for moves, ``analysis_limit`` for analyses), so waiting
analyses never take a move's place: however many analyses wait, a move is
refused only for moves.

This module knows nothing of processes; ``local_pool.py`` asks it for the next job.
"""

from __future__ import annotations

from collections import Counter, deque
from itertools import chain, zip_longest

from webapp.search_pool.jobs import Priority, SearchJob


def turn_of(job: SearchJob) -> str:
    """Whose turn ``job`` takes: its ``turn`` if given, else its owner's."""
    return job.turn or job.owner


class Lane:
    """One priority class: a queue per turn (an owner, or an address), served in turns."""

    def __init__(self) -> None:
        # Insertion order is the order of turns: the owner served last moves to the end.
        self._owners: dict[str, deque[SearchJob]] = {}
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> chain[SearchJob]:
        """The jobs in the order they would run if nothing else arrived."""
        rounds = zip_longest(*self._owners.values())
        return chain.from_iterable((job for job in turn if job is not None) for turn in rounds)

    def push(self, job: SearchJob) -> None:
        self._owners.setdefault(turn_of(job), deque()).append(job)
        self._size += 1

    def push_front(self, job: SearchJob) -> None:
        """Put ``job`` first in the lane (a preempted job keeps its turn)."""
        jobs = self._owners.pop(turn_of(job), deque())
        jobs.appendleft(job)
        self._owners = {turn_of(job): jobs, **self._owners}
        self._size += 1

    def pop(self) -> SearchJob | None:
        if not self._owners:
            return None
        owner = next(iter(self._owners))
        jobs = self._owners.pop(owner)
        job = jobs.popleft()
        if jobs:
            self._owners[owner] = jobs  # back of the turns
        self._size -= 1
        return job

    def remove(self, job: SearchJob) -> bool:
        jobs = self._owners.get(turn_of(job))
        if jobs is None or job not in jobs:
            return False
        jobs.remove(job)
        if not jobs:
            del self._owners[turn_of(job)]
        self._size -= 1
        return True

    def oldest(self) -> SearchJob | None:
        """The job submitted first (lowest id): the one shed under load."""
        return min(self, key=lambda job: job.id, default=None)


class Scheduler:
    """Waiting jobs in priority lanes, with per-owner, per-game and total bounds."""

    def __init__(
        self,
        queue_limit: int,
        owner_limit: int,
        game_limit: int,
        scores_limit: int,
        analysis_limit: int | None = None,
    ) -> None:
        self.queue_limit, self.owner_limit = queue_limit, owner_limit
        self.game_limit, self.scores_limit = game_limit, scores_limit
        self.analysis_limit = queue_limit if analysis_limit is None else analysis_limit
        self._lanes = {priority: Lane() for priority in Priority}
        # Waiting, bounded jobs per (class, owner) and per (class, game): moves and
        # analyses never count against each other.
        self._owners: Counter[tuple[Priority, str]] = Counter()
        self._games: Counter[tuple[Priority, str]] = Counter()
        self.changes = 0  # grows with every change of order (for the places reported)
        # Jobs popped ahead (sent into a busy worker's pipe): still waiting, so still
        # counted against the bounds until they start (``started``).
        self._ahead: Counter[Priority] = Counter()

    # -- questions --------------------------------------------------------------------
    def waiting(self, priority: Priority | None = None) -> int:
        if priority is None:
            return sum(len(lane) for lane in self._lanes.values())
        return len(self._lanes[priority])

    def order(self) -> list[SearchJob]:
        """Every waiting job, in the order they would run if nothing else arrived."""
        return [job for priority in Priority for job in self._lanes[priority]]

    def sheds(self, priority: Priority, count: int = 1) -> bool:
        """Whether ``count`` new jobs of the class would shed waiting ones (``add``): SCORES
        jobs past the lane's ``scores_limit``."""
        waiting = len(self._lanes[priority])
        return priority == Priority.SCORES and waiting + count > self.scores_limit

    def refusal(self, priority: Priority, owner: str, game_id: str) -> str | None:
        """Why a new job would be refused, or None if it would be queued."""
        if priority == Priority.SCORES:
            return None  # shed, never refused
        if owner and self._owners[priority, owner] >= self.owner_limit:
            return f"you already have {self.owner_limit} searches waiting"
        if game_id and self._games[priority, game_id] >= self.game_limit:
            return f"this game already has {self.game_limit} searches waiting"
        if priority == Priority.ANALYSIS:
            if self.waiting(priority) >= self.analysis_limit:
                return f"{self.analysis_limit} analyses are already waiting"
        elif self.waiting(priority) + self._ahead[priority] >= self.queue_limit:
            return f"{self.queue_limit} searches are already waiting"
        return None

    # -- changes ----------------------------------------------------------------------
    def add(self, job: SearchJob) -> SearchJob | None:
        """Queue ``job`` (the caller checked ``refusal``); return a SCORES job it sheds."""
        shed = None
        lane = self._lanes[job.priority]
        if self.sheds(job.priority):  # one more than the lane holds
            shed = lane.oldest()
            if shed is not None:
                lane.remove(shed)
                shed.dropped = True
        lane.push(job)
        self._count(job, 1)
        return shed

    def requeue(self, job: SearchJob) -> None:
        """Put a job that was running back at the front of its class."""
        self._lanes[job.priority].push_front(job)
        self._count(job, 1)

    def peek(self, priority: Priority) -> SearchJob | None:
        """The job ``pop(priority)`` would return, left waiting."""
        return next(iter(self._lanes[priority]), None)

    def pop(self, priority: Priority, ahead: bool = False) -> SearchJob | None:
        """The next job of the class; ``ahead``: it goes into a busy worker's pipe, so it
        stays counted against the bounds until ``started``."""
        job = self._lanes[priority].pop()
        if job is not None:
            if ahead:
                self._ahead[priority] += 1
            else:
                self._count(job, -1)
        return job

    def started(self, job: SearchJob) -> None:
        """A job popped ``ahead`` has begun, or left its pipe: no longer waiting."""
        self._ahead[job.priority] -= 1
        self._count(job, -1)

    def remove(self, job: SearchJob) -> bool:
        if not self._lanes[job.priority].remove(job):
            return False
        self._count(job, -1)
        return True

    def clear(self) -> list[SearchJob]:
        jobs = self.order()
        for job in jobs:
            self.remove(job)
        return jobs

    def _count(self, job: SearchJob, step: int) -> None:
        self.changes += 1
        if job.priority == Priority.SCORES:
            return
        for counter, key in ((self._owners, job.owner), (self._games, job.game_id)):
            if key:
                counter[job.priority, key] += step
                if counter[job.priority, key] <= 0:
                    del counter[job.priority, key]
