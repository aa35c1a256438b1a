"""Prices and usage to cost, with the unknown part kept apart; no third-party imports."""

# A call's usage splits into cache-hit input, cache-miss input and output tokens:
# - prompt_cache_hit_tokens and prompt_cache_miss_tokens when both are there (DeepSeek);
# - else prompt_tokens_details.cached_tokens as hits and the rest of prompt_tokens as misses;
# - else all of prompt_tokens as misses.
# Output is completion_tokens. Usage that is null, not an object, or has a missing, negative,
# non-integer or absurd count (above MAX_TOKENS, e.g. 10**400 from a hostile record, which
# would overflow as soon as it meets a float price) is unknown: counted apart, never priced
# as zero.
#
# Cost comes from integer token sums (tokens * price per million / 1,000,000), so it does not
# depend on the order calls are added in, and is rounded to COST_DECIMALS: exact for prices
# with up to 6 decimals per million tokens, without float noise like 0.00015052800000000003.

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.base.config import Prices

MILLION = 1_000_000
COST_DECIMALS = 12
# No real call comes near it (a million-token context is 10**6); sums of counts this size
# times any price config accepts stay far inside float range.
MAX_TOKENS = 10**15


def _count(value: object) -> int | None:
    """A token count: an int from 0 to MAX_TOKENS (bool is not a count), else None."""
    return value if type(value) is int and 0 <= value <= MAX_TOKENS else None


def split_usage(usage: object) -> tuple[int, int, int] | None:
    """(cache-hit input, cache-miss input, output) tokens of one call, or None if unknown."""
    if type(usage) is not dict:
        return None
    get = usage.get
    # Each count checked in place (not by a call to _count): this runs for every call of
    # every run on `costs` and `runs`.
    output = get("completion_tokens")
    if type(output) is not int or not 0 <= output <= MAX_TOKENS:
        return None
    hit, miss = get("prompt_cache_hit_tokens"), get("prompt_cache_miss_tokens")
    if hit is not None and miss is not None:
        # A split that is present but broken says the usage is wrong; guessing could misprice.
        if (type(hit) is int and type(miss) is int and 0 <= hit <= MAX_TOKENS
                and 0 <= miss <= MAX_TOKENS):
            return hit, miss, output
        return None
    prompt = _count(get("prompt_tokens"))
    if prompt is None:
        return None
    details = get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None:
        return 0, prompt, output
    cached = _count(cached)
    if cached is None or cached > prompt:
        return None
    return cached, prompt - cached, output


class Tally:
    """Token sums of the calls whose usage is known, and how many calls are unknown."""

    # A plain class, not a dataclass: the flow builds one per run, and a dataclass costs
    # about a millisecond of start-up to define.
    __slots__ = ("calls", "unknown_calls", "input_cache_hit_tokens", "input_cache_miss_tokens",
                 "output_tokens")

    def __init__(self, calls: int = 0, unknown_calls: int = 0, input_cache_hit_tokens: int = 0,
                 input_cache_miss_tokens: int = 0, output_tokens: int = 0) -> None:
        self.calls = calls
        self.unknown_calls = unknown_calls
        self.input_cache_hit_tokens = input_cache_hit_tokens
        self.input_cache_miss_tokens = input_cache_miss_tokens
        self.output_tokens = output_tokens

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tally):
            return NotImplemented
        return self.counts == other.counts

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Tally({})".format(", ".join(f"{name}={getattr(self, name)}"
                                            for name in self.__slots__))

    @property
    def counts(self) -> tuple[int, int, int, int, int]:
        return (self.calls, self.unknown_calls, self.input_cache_hit_tokens,
                self.input_cache_miss_tokens, self.output_tokens)

    @property
    def tokens(self) -> int:
        """All known tokens: input (cache hit and miss) and output."""
        return self.input_cache_hit_tokens + self.input_cache_miss_tokens + self.output_tokens

    def add_call(self, usage: object) -> tuple[int, int, int] | None:
        """Count one call; its usage is added only when known. Returns the split."""
        self.calls += 1
        split = split_usage(usage)
        if split is None:
            self.unknown_calls += 1
        else:
            self.input_cache_hit_tokens += split[0]
            self.input_cache_miss_tokens += split[1]
            self.output_tokens += split[2]
        return split

    def add(self, other: Tally) -> None:
        """Add another tally's counts to this one (a run into the total)."""
        self.calls += other.calls
        self.unknown_calls += other.unknown_calls
        self.input_cache_hit_tokens += other.input_cache_hit_tokens
        self.input_cache_miss_tokens += other.input_cache_miss_tokens
        self.output_tokens += other.output_tokens

    def cost(self, prices: Prices) -> float:
        """The price of the known part; `prices` has input_cache_hit, input_cache_miss, output."""
        return price_tokens(
            (self.input_cache_hit_tokens, self.input_cache_miss_tokens, self.output_tokens), prices
        )

    def as_dict(self, prices: Prices) -> dict[str, Any]:
        """The counts and the known cost, as the costs JSON shows them."""
        return {
            "calls": self.calls,
            "unknown_calls": self.unknown_calls,
            "input_cache_hit_tokens": self.input_cache_hit_tokens,
            "input_cache_miss_tokens": self.input_cache_miss_tokens,
            "output_tokens": self.output_tokens,
            "cost": self.cost(prices),
        }


def price_tokens(split: tuple[int, int, int], prices: Prices) -> float:
    """The cost of (hit, miss, output) tokens at prices per million tokens."""
    hit, miss, output = split
    total = hit * prices.input_cache_hit + miss * prices.input_cache_miss + output * prices.output
    return round(total / MILLION, COST_DECIMALS)


def tally_usages(usages: Sequence[object]) -> Tally:
    """Tally the usage of each call (RunSummary.usages); an unknown one is counted apart."""
    tally = Tally(len(usages))
    # Inlined add_call: this loop runs for every call of every run on `costs` and `runs`.
    hit = miss = output = unknown = 0
    for usage in usages:
        split = split_usage(usage)
        if split is None:
            unknown += 1
        else:
            hit += split[0]
            miss += split[1]
            output += split[2]
    tally.unknown_calls = unknown
    tally.input_cache_hit_tokens = hit
    tally.input_cache_miss_tokens = miss
    tally.output_tokens = output
    return tally
