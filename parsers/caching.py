"""Bounded caches: the one way parsers/ and analytics/ remember values between calls.

A dashboard or ingest server runs for days, and most remembered values are keyed by user
data (action lines, header texts, rule sets, card tuples), so every cache here has a
limit, and all of them are listed by name: :func:`cache_sizes` shows what they hold and
:func:`clear_caches` empties them (tests, or a server that wants its memory back).

Which tool for which cache:

* :class:`BoundedCache` for a value keyed by anything a user's data decides: texts, rule
  sets, card tuples, ids of live objects.  When it is full it is emptied at once and
  refills: the keys repeat from hand to hand, so a few hands fill it again, and a hit
  costs one ``dict.get`` in C (an LRU's reordering on every hit would cost more than the
  rare refills).
* ``functools.cache`` for a pure function whose arguments range over a small finite set
  known in the code (an enum, a player count, a flag): it never grows past that set, and
  its values never need clearing.  Anything keyed by user data is a :class:`BoundedCache`.

Thread safety (Streamlit serves each session from a thread): lookups are single
``dict.get`` calls, which the interpreter makes atomic; stores and clears take the
cache's lock, so a store never lands in a cache another thread is emptying half way.
Values must be immutable (or never mutated), since they are shared between callers.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar, cast

__all__ = ["BoundedCache", "cache_sizes", "clear_caches"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_REGISTRY: weakref.WeakValueDictionary[str, BoundedCache[Any, Any]] = (
    weakref.WeakValueDictionary())
"""Every cache alive, by its name (a module and what it holds): a cache held by another
(one per game and player count, say) leaves when that one drops it."""
_REGISTRY_LOCK = threading.Lock()


class BoundedCache(dict[K, V]):
    """Values by key, at most ``limit`` of them: emptied when a new key would pass it.

    A dictionary, so lookups are the dictionary's own, in C (``get``, ``[]``, ``in``,
    ``map(cache.get, keys)``; hot loops may bind ``cache.get`` to a local once), and code
    that takes a ``dict`` takes it.  Stores go through the bound: ``cache[key] = value``,
    :meth:`put`, :meth:`get_or_make` and :meth:`values_of` (not ``update`` or
    ``setdefault``, which are the dictionary's own and would pass it by).
    """

    __slots__ = ("__weakref__", "_lock", "limit", "name")

    def __init__(self, name: str, limit: int) -> None:
        """``name``: ``module.what``, unique (the key of :func:`cache_sizes`);
        ``limit``: the most entries held at once (at least 1)."""
        super().__init__()
        if limit < 1:
            raise ValueError(f"cache {name!r}: the limit must be at least 1, not {limit}")
        self.name = name
        self.limit = limit
        self._lock = threading.Lock()
        with _REGISTRY_LOCK:
            _REGISTRY[name] = self  # a module run again (a reload) replaces its caches

    def put(self, key: K, value: V) -> V:
        """Remember ``value`` for ``key`` (emptying the cache first when it is full and
        ``key`` is new); return ``value``."""
        with self._lock:
            if len(self) >= self.limit and not dict.__contains__(self, key):
                dict.clear(self)
            dict.__setitem__(self, key, value)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self.put(key, value)

    def get_or_make(self, key: K, make: Callable[[K], V]) -> V:
        """The value for ``key``, made by ``make(key)`` and remembered when missing.
        (A value that is None is made again each time: ``get`` cannot tell it from a miss.)"""
        found = self.get(key)
        if found is None:
            found = make(key)
            self.put(key, found)
        return found

    def values_of(self, keys: Sequence[K], make: Callable[[K], V]) -> list[V]:
        """The value of each key, in order: each missing key made once (keys repeat
        within a batch), and every key looked up in C, with no Python step per key."""
        found = [*map(self.get, keys)]
        if None not in found:
            return found  # type: ignore[return-value]
        new = {key: make(key) for key in set(keys).difference(self)}
        with self._lock:
            if len(self) + len(new) > self.limit:
                dict.clear(self)  # starting over: the batch's known keys go in again
                new.update((key, value) for key, value in zip(keys, found, strict=True)
                           if value is not None)
            if len(new) <= self.limit:
                dict.update(self, new)
                try:
                    return [*map(self.__getitem__, keys)]
                except KeyError:  # a hit above that another thread has emptied since
                    pass
        # More new keys than the cache holds, or a hit emptied since: answered all the same.
        return [new[key] if key in new else cast(V, value)
                for key, value in zip(keys, found, strict=True)]

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            dict.clear(self)

    def __repr__(self) -> str:
        return f"BoundedCache({self.name!r}, {len(self):,} of {self.limit:,})"


def cache_sizes() -> dict[str, int]:
    """The number of entries each cache holds now, by name, sorted by name."""
    with _REGISTRY_LOCK:
        caches = sorted(_REGISTRY.items())
    return {name: len(cache) for name, cache in caches}


def clear_caches() -> None:
    """Empty every cache (tests that must not see another test's values; a server)."""
    with _REGISTRY_LOCK:
        caches = list(_REGISTRY.values())
    for cache in caches:
        cache.clear()
