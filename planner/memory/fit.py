"""Fitting FSRS to the person, and simulating it (README "A memory fitted to you"):
`fsrs-rs-python`, the optimizer and
simulator Anki itself runs (no torch), imported here only and only when fitting or simulating.

The data is one list of reviews per card (a note of the review log, a card of an Anki
collection), each review a time and a rating 1-4. As Anki does, every review after a card's
first that falls on a later day is one training item: the card's reviews up to it, each with the
whole days since the one before (the `fsrs` library's count, so a fit schedules as it was
scored). The items are in time order of their last review, which the time-series split needs.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, NamedTuple

from planner.base.errors import Failure
from planner.base.i18n import t

MIN_REVIEWS = 50
SPLITS = 5  # fsrs-rs-python's evaluate_with_time_series_splits: 5 folds of 6 segments
MAX_HISTORY = 256  # reviews per training item (fsrs-rs's max_seq_len)


class FitError(Failure):
    """The optimizer could not fit these reviews; str() says why, in one line."""


class Scores(NamedTuple):
    """Out-of-sample scores: lower is better."""

    log_loss: float
    rmse_bins: float


class Fit(NamedTuple):
    """The fitted parameters, their scores on the later reviews of a time-series split, and the
    scores of the parameters in use on the same reviews."""

    parameters: list[float]
    new: Scores
    old: Scores
    items: int


def default_parameters() -> list[float]:
    """FSRS-6's defaults as fsrs-rs-python has them."""
    import fsrs_rs_python

    return [float(value) for value in fsrs_rs_python.DEFAULT_PARAMETERS]


def training_items(histories: Iterable[Sequence[tuple[_dt.datetime, int]]]) -> list[Any]:
    """The FSRSItems of the cards' histories (each in time order), in time order."""
    import fsrs_rs_python

    review_type = fsrs_rs_python.FSRSReview
    found: list[tuple[_dt.datetime, int, Any]] = []
    for history in histories:
        reviews: list[Any] = []
        previous: _dt.datetime | None = None
        for moment, rating in history:
            days = 0 if previous is None else max(0, (moment - previous).days)
            reviews.append(review_type(rating, days))
            previous = moment
            if len(reviews) > 1 and days > 0:
                found.append((moment, len(found), reviews[-MAX_HISTORY:]))
    found.sort(key=lambda entry: (entry[0], entry[1]))
    item_type = fsrs_rs_python.FSRSItem
    return [item_type(list(reviews)) for _moment, _order, reviews in found]


def by_card(reviews: Iterable[tuple[Hashable, _dt.datetime, int]]
            ) -> list[list[tuple[_dt.datetime, int]]]:
    """Reviews grouped by card, each card's in time order (a stable sort)."""
    cards: dict[Hashable, list[tuple[_dt.datetime, int]]] = {}
    for card, moment, rating in reviews:
        cards.setdefault(card, []).append((moment, rating))
    for history in cards.values():
        history.sort(key=lambda review: review[0])
    return list(cards.values())


def fit(items: Sequence[Any], in_use: Sequence[float]) -> Fit:
    """Fit the parameters to `items`; score them and `in_use` out of sample on the same later
    reviews (the test segments of the time-series split). FitError when it cannot."""
    import fsrs_rs_python

    if len(items) < SPLITS + 1:
        raise FitError(t("too few reviews on later days to fit ({count}); review more and fit "
                         "again", count=len(items)))
    try:
        model = fsrs_rs_python.FSRS(default_parameters())
        parameters = [float(value) for value in model.compute_parameters(list(items))]
        new = fsrs_rs_python.evaluate_with_time_series_splits(list(items))
        later = list(items[len(items) // (SPLITS + 1):])
        old = fsrs_rs_python.FSRS(list(in_use)).evaluate(later)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # the Rust library's errors (a panic too) share no type
        raise FitError(t("the optimizer could not fit these reviews ({reason})",
                         reason=" ".join(str(error).split())[:200])) from None
    return Fit(parameters, Scores(float(new.log_loss), float(new.rmse_bins)),
               Scores(float(old.log_loss), float(old.rmse_bins)), len(items))


def fit_or_refusal(items: Sequence[Any], in_use: Sequence[float]) -> Fit | str:
    """fit(), or the line saying why no fit was made and that nothing was changed."""
    try:
        return fit(items, in_use)
    except FitError as error:
        return t("{reason}; nothing was changed", reason=error)


class Simulation(NamedTuple):
    """A simulated future at one desired retention: per-day averages and the notes memorised
    at the end."""

    retention: float
    reviews_per_day: float
    minutes_per_day: float
    memorised: float


def simulate(parameters: Sequence[float], retention: float, days: int, deck_size: int,
             seconds_per_review: float, seed: int = 42) -> Simulation:
    """fsrs-rs-python's simulation of `days` days of a deck of `deck_size` notes learned evenly
    over those days and reviewed at `retention`; every review (the first included) takes
    `seconds_per_review`."""
    import fsrs_rs_python

    config = fsrs_rs_python.default_simulator_config()
    config.deck_size = max(1, deck_size)
    config.learn_span = days
    config.learn_limit = max(1, -(-deck_size // max(1, days)))
    config.review_limit = 100_000
    config.max_cost_perday = 24 * 3600.0
    cost = float(seconds_per_review)
    config.state_rating_costs = [[cost] * 4, [cost] * 4, [cost] * 4]
    try:
        result = fsrs_rs_python.simulate(list(parameters), retention, config, seed)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # the Rust library's errors (a panic too) share no type
        raise FitError(t("the simulation could not run ({reason})",
                         reason=" ".join(str(error).split())[:200])) from None
    reviews = [review + learn for review, learn in zip(result.review_cnt_per_day[:days],
                                                       result.learn_cnt_per_day[:days],
                                                       strict=False)]
    costs = result.cost_per_day[:days]
    memorised = result.memorized_cnt_per_day[:days]
    count = max(1, len(reviews))
    return Simulation(retention, sum(reviews) / count, sum(costs) / 60 / count,
                      float(memorised[-1]) if memorised else 0.0)
