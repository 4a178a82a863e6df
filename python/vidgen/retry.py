"""The retry rules, shared with the TypeScript client: how long to wait, and from what."""
from __future__ import annotations

import email.utils
import random
import re
import time
from dataclasses import dataclass
from typing import Optional

from .errors import ApiError


@dataclass(frozen=True)
class RetryOptions:
    """``max_retries``: retries after the first attempt (at most max_retries + 1 requests); 0
    turns retrying off. ``base_delay``: the first backoff in seconds, doubled on every retry,
    with jitter. ``max_delay``: the upper bound of any single wait, Retry-After included."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0


@dataclass(frozen=True)
class RetryInfo:
    """Handed to ``on_retry`` before each retry. ``attempt`` is 1 for the first retry."""

    attempt: int
    delay: float
    error: ApiError
    method: str
    url: str


#: Statuses retried on a call that is safe to repeat (a proxy's 502/503/504, the API's 500).
RETRYABLE_5XX = frozenset({500, 502, 503, 504})


def retry_delay(
    error: ApiError,
    attempt: int,
    *,
    idempotent: bool,
    has_idempotency_key: bool,
    options: RetryOptions,
) -> Optional[float]:
    """The wait (seconds) before the next attempt, or None when this failure is final.
    ``attempt`` counts from 0 for the first request."""
    if attempt >= options.max_retries:
        return None
    # A 429 is always retried: nothing happened.
    if error.status == 429:
        if error.retry_after is not None:
            return float(min(error.retry_after, options.max_delay))
        return backoff_delay(attempt, options)
    if not idempotent:
        return None
    # The API keeps its answer under an Idempotency-Key: its own 502 (the provider refused; the
    # credits were refunded) is that answer, and a retry under the same key can only replay it.
    if has_idempotency_key and error.status == 502 and error.from_api:
        return None
    if error.code == "network_error" or error.status in RETRYABLE_5XX:
        return backoff_delay(attempt, options)
    return None


def backoff_delay(attempt: int, options: RetryOptions) -> float:
    """Exponential backoff with "equal jitter": between half and all of base * 2^attempt, capped."""
    ceiling = min(options.max_delay, options.base_delay * 2 ** attempt)
    return ceiling / 2 + random.random() * (ceiling / 2)


_HTTP_DATE = re.compile(r"^[A-Za-z]{3}, ")


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """Retry-After is whole seconds or an HTTP date; returns seconds (>= 0) or None."""
    if value is None or value.strip() == "":
        return None
    trimmed = value.strip()
    if re.fullmatch(r"[0-9]+", trimmed):
        return int(trimmed)
    if not _HTTP_DATE.match(trimmed):  # an HTTP date: "Wed, 21 Oct 2026 07:28:00 GMT"
        return None
    try:
        when = email.utils.parsedate_to_datetime(trimmed)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    seconds = when.timestamp() - current
    return max(0, int(-(-seconds // 1)))
