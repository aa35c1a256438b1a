"""A simulated learner with known FSRS parameters (README "A memory fitted to you" tests and
benchmarks/memory_bench.py).

Each card is first seen on a random day, then reviewed when planner would say it is due (`fsrs`'s
Scheduler with the default parameters), a few days early or late at times. Whether it is
recalled is drawn at random with the retrievability of the learner's TRUE memory (the same
reviews replayed with the true parameters); a recall is rated hard, good or easy, a lapse again.
A fixed seed makes every run the same history.
"""

from __future__ import annotations

import datetime as _dt
import random

# Far from the defaults: new cards are forgotten faster, stability grows more slowly, and
# recall decays more steeply than FSRS-6's defaults say.
TRUE_PARAMETERS = (0.02, 0.05, 0.15, 0.6, 7.5, 0.5, 2.5, 0.02, 0.6, 0.2, 1.2, 2.0, 0.08, 0.3, 1.6,
                   0.4, 2.0, 0.5, 0.1, 0.1, 0.5)
RATINGS = ("again", "hard", "good", "easy")


def history(cards: int, days: int, seed: int = 24, start: _dt.datetime | None = None,
            parameters: tuple[float, ...] = TRUE_PARAMETERS
            ) -> list[tuple[str, _dt.datetime, str]]:
    """(card, UTC time, rating) for every review of `cards` cards over `days` days, in time
    order."""
    import fsrs

    rng = random.Random(seed)
    memory = fsrs.Scheduler(parameters=parameters, desired_retention=0.9, learning_steps=(),
                            relearning_steps=(), enable_fuzzing=False)
    planner = fsrs.Scheduler(desired_retention=0.9, learning_steps=(), relearning_steps=(),
                             enable_fuzzing=False)
    rating_of = {"again": fsrs.Rating.Again, "hard": fsrs.Rating.Hard,
                 "good": fsrs.Rating.Good, "easy": fsrs.Rating.Easy}
    begin = start or _dt.datetime(2025, 1, 1, 9, tzinfo=_dt.UTC)
    end = begin + _dt.timedelta(days=days)
    found: list[tuple[str, _dt.datetime, str]] = []
    for number in range(cards):
        name = f"C{number}"
        card = fsrs.Card(card_id=number, due=begin)
        true = fsrs.Card(card_id=number, due=begin)
        moment = begin + _dt.timedelta(days=rng.randrange(max(1, days * 2 // 3)),
                                       minutes=rng.randrange(600))
        first = True
        while moment < end:
            if first:
                rating = rng.choices(RATINGS, (30, 15, 45, 10))[0]
                first = False
            else:
                recall = memory.get_card_retrievability(true, moment)
                rating = (rng.choices(RATINGS[1:], (15, 75, 10))[0] if rng.random() < recall
                          else "again")
            card, _ = planner.review_card(card, rating_of[rating], moment)
            true, _ = memory.review_card(true, rating_of[rating], moment)
            found.append((name, moment, rating))
            late = _dt.timedelta(days=rng.choice((-2, -1, 0, 0, 0, 1, 2, 4)),
                                 minutes=rng.randrange(120))
            moment = max(card.due + late, moment + _dt.timedelta(hours=20))
    found.sort(key=lambda review: review[1])
    return found
