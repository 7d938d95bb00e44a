"""Keep Python's cyclic garbage collector off the states of a long search (issue 13).

A search keeps millions of small containers alive (states, successor lists, caches)
and makes few reference cycles. Each full collection walks every live object again,
the IR of a model of 10 000 processes included: a counter-abstraction search of LE at
N = 10 000 spent about half its time there (13 s CPU with, 7.6 s without). Within
``rare_full_collections`` the youngest generations are still collected as usual (a
cycle made and dropped during the search is freed); only the passes over the oldest
generation are put off until the search ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

# Full collections at most once per this many collections of the middle generation
# (CPython's default is 10; each of those follows about 7 000 allocations).
FULL_COLLECTION_EVERY = 1_000_000


@contextlib.contextmanager
def rare_full_collections() -> Iterator[None]:
    """Yield with the collector's full passes put off (thresholds restored after)."""
    old = gc.get_threshold()
    gc.set_threshold(old[0], old[1], max(old[2], FULL_COLLECTION_EVERY))
    try:
        yield
    finally:
        gc.set_threshold(*old)
