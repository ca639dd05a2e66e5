"""Root splitting: the exact scores of a position's moves, shared between worker processes.

After an engine move the scores of every move at that position are searched
as display work (``Priority.SCORES``). With an exact solver each move's score
is a solve of its own, so the moves can be split between the workers that
take lesser work (never the reserve kept for engine moves): the job becomes
one part per such worker, each a ``SearchJob`` whose ``Limits.root_moves``
holds some of the moves (``webapp.engine.driver``, "Root moves"). The parts
are ordinary SCORES jobs: shed under load, preempted for an engine move, and
cancelled together. When every part has reported, ``collect`` hands the
caller one result for the whole job, as if it had not been split; if a part
failed (or was shed) the whole job failed, as the scores are shown complete
or not at all.

The service calls ``submit``, ``cancel`` and ``collect`` where it would call
the pool directly; a job that is not split goes to the pool unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from webapp.games import new_game
from webapp.search_pool import Pool, SearchJob


@dataclass(eq=False)
class Split:
    """A job split into parts, and what the parts have reported so far."""

    whole: SearchJob
    parts: list[SearchJob] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    reported: int = 0


def worth_splitting(job: SearchJob) -> bool:
    """An exact solve (alpha-beta, no depth limit): the root's moves are solved one by one."""
    return job.algorithm == "alphabeta" and job.limits.depth is None and job.move_scores


def lesser_workers(pool: Pool) -> int:
    """Workers that may run SCORES work at once (the pool's rule: never the reserve).

    A pool that does not say (the shared queue's: its hosts' workers are elsewhere)
    gets the job whole."""
    size, reserve = getattr(pool, "size", 1), getattr(pool, "reserve", 0)
    return max(1, int(size) - int(reserve))


def split_moves(moves: list[str], parts: int) -> list[tuple[str, ...]]:
    """``moves`` (likely best, hence costliest, first) dealt into at most ``parts``
    non-empty hands, back and forth (1 2 2 1 1 2 ...) so the hands cost about the same."""
    parts = max(1, min(parts, len(moves)))
    hands: list[list[str]] = [[] for _ in range(parts)]
    for i, move in enumerate(moves):
        turn, seat = divmod(i, parts)
        hands[seat if turn % 2 == 0 else parts - 1 - seat].append(move)
    return [tuple(hand) for hand in hands]


def parts_at_most(pool: Pool, job: SearchJob) -> int:
    """How many jobs ``submit(pool, job)`` queues at most: one per lesser worker for a
    job worth splitting (fewer if the position has fewer moves), else one."""
    count = lesser_workers(pool)
    return count if count >= 2 and worth_splitting(job) else 1


def submit(pool: Pool, job: SearchJob, parts: int | None = None) -> None:
    """Submit ``job`` in ``parts`` parts (default: one per lesser worker) or whole.

    Its tag's third item becomes the ``Split`` (``(kind, game_id, split)``):
    every part carries the same tag. Raises PoolBusy, with no part left queued.
    """
    count = lesser_workers(pool) if parts is None else parts
    if count < 2 or not worth_splitting(job):
        pool.submit(job)
        return
    position = new_game(job.game, job.moves)
    hands = split_moves([position.format_move(m) for m in position.ordered_moves()], count)
    if len(hands) < 2:
        pool.submit(job)
        return
    split = Split(job)
    job.tag = (*job.tag[:2], split)
    for hand in hands:
        limits = replace(job.limits, root_moves=hand)
        split.parts.append(replace(job, limits=limits, id=0))
    try:
        for part in split.parts:
            pool.submit(part)
    except Exception:
        cancel(pool, job)
        raise


def cancel(pool: Pool, job: SearchJob) -> None:
    """Cancel ``job``, or every part of it."""
    split = job.tag[2] if isinstance(job.tag[2], Split) else None
    if split is None:
        pool.cancel(job.id)
        return
    for part in split.parts:
        if part.id:
            pool.cancel(part.id)


def collect(
    job: SearchJob, result: dict[str, Any] | None, error: str | None
) -> tuple[SearchJob, dict[str, Any] | None, str | None] | None:
    """A part's outcome (the pool's ``on_result``): the whole job's once every part has
    reported, else None. A job that was not split is handed back as it is."""
    split = job.tag[2] if isinstance(job.tag[2], Split) else None
    if split is None:
        return job, result, error
    split.reported += 1
    if result is None:
        split.error = split.error or error
        split.whole.dropped = split.whole.dropped or job.dropped
    else:
        split.results.append(result)
    if split.reported < len(split.parts):
        return None
    if split.error is not None:
        return split.whole, None, split.error
    return split.whole, merge(split.results), None


def _own_depths(result: dict[str, Any]) -> dict[str, Any]:
    """A part's move scores, each estimate marked with the depth it was searched to: the
    whole's depth is the shallowest part's, which another part's estimates may pass. An
    estimate of a solved part (the solver's leftover) keeps its own mark, or none."""
    moves: dict[str, Any] = result.get("move_scores") or {}
    if result["exact"] and not result.get("stopped"):
        return moves
    return {
        move: score if score["exact"] or "depth" in score else score | {"depth": result["depth"]}
        for move, score in moves.items()
    }


def merge(results: list[dict[str, Any]]) -> dict[str, Any]:
    """One ``SearchResult.to_dict()`` from the parts': the best part's move, every score."""
    best = max(results, key=lambda r: (r["exact"], r["score"]))
    scores: dict[str, Any] = {}
    for result in results:
        scores |= _own_depths(result)
    stopped = [r["stopped"] for r in results if r.get("stopped")]
    return best | {
        "exact": all(r["exact"] for r in results),
        "nodes": sum(r["nodes"] for r in results),
        "depth": min(r["depth"] for r in results),
        "time_ms": max(r["time_ms"] for r in results),
        "move_scores": dict(sorted(scores.items())),
        "stopped": stopped[0] if stopped else None,
        "extra": best.get("extra", {}) | {"parts": len(results)},
        "iterations_counted": any(r.get("iterations_counted") for r in results),
    }
