"""The bounded cache helper (:mod:`parsers.caching`): bounded, listed, clearable, and safe
to fill from several threads at once."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

import parsers  # noqa: F401  (registers the parsers' caches)
from analytics.warehouse import ingest  # noqa: F401  (and the analytics' ones)
from parsers.caching import BoundedCache, cache_sizes, clear_caches


def test_get_put_and_get_or_make() -> None:
    cache = BoundedCache[str, int]("tests.get_put", 10)
    assert cache.get("a") is None
    assert cache.put("a", 1) == 1
    assert cache.get("a") == 1
    made: list[str] = []

    def make(key: str) -> int:
        made.append(key)
        return len(key)

    assert cache.get_or_make("bcd", make) == 3
    assert cache.get_or_make("bcd", make) == 3
    assert made == ["bcd"]
    assert len(cache) == 2
    assert "bcd" in cache
    assert "zz" not in cache


def test_a_full_cache_is_emptied_before_a_new_key() -> None:
    cache = BoundedCache[int, int]("tests.full", 3)
    for key in range(3):
        cache.put(key, key)
    cache.put(2, 20)  # a key it holds: stored over, nothing dropped
    assert len(cache) == 3
    assert cache.get(2) == 20
    cache.put(3, 3)
    assert len(cache) == 1
    assert cache.get(3) == 3
    assert cache.get(0) is None


@given(st.lists(st.lists(st.integers(-20, 20), max_size=20), max_size=10), st.integers(1, 12))
def test_values_of_reads_each_new_key_once_per_batch(batches: list[list[int]],
                                                     limit: int) -> None:
    """The block scanner's use: each key's value, each missing key made once per batch
    however often it repeats, also when the cache starts over full; never past the limit
    (but a batch's own new keys are answered all the same)."""
    cache = BoundedCache[int, str](f"tests.values_of.{limit}", limit)
    cache.clear()
    made: list[int] = []

    def make(key: int) -> str:
        made.append(key)
        return f"<{key}>"

    for batch in batches:
        made.clear()
        assert cache.values_of(batch, make) == [f"<{key}>" for key in batch]
        assert sorted(made) == sorted(set(made)), "each key made at most once"
        assert len(cache) <= limit
        remembered = set(batch) if len(set(batch)) <= limit else set()
        assert remembered <= set(cache)
        made.clear()
        assert cache.values_of(batch, make) == [f"<{key}>" for key in batch]
        if remembered:
            assert made == [], "a batch the cache holds is answered from it"


def test_values_of_with_more_new_keys_than_the_limit_answers_them_all() -> None:
    cache = BoundedCache[int, int]("tests.values_of_big", 2)
    assert cache.values_of([1, 2, 3, 1], lambda key: -key) == [-1, -2, -3, -1]
    assert len(cache) <= 2


def test_the_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        BoundedCache[int, int]("tests.zero", 0)


def test_sizes_and_clear_cover_every_cache() -> None:
    cache = BoundedCache[str, str]("tests.listed", 5)
    cache.put("x", "y")
    sizes = cache_sizes()
    assert sizes["tests.listed"] == 1
    assert list(sizes) == sorted(sizes)
    # The modules' own caches are listed too: the action parser's, the ids' rule sets.
    assert "parsers.actions.parsed" in sizes
    assert "analytics.warehouse.identity.rules_by_value" in sizes
    clear_caches()
    assert cache_sizes()["tests.listed"] == 0
    assert set(cache_sizes().values()) == {0}


def test_threads_filling_and_clearing_at_once_keep_it_bounded_and_right() -> None:
    cache = BoundedCache[int, int]("tests.threads", 50)
    errors: list[str] = []

    def work(offset: int) -> None:
        for step in range(3_000):
            key = (step * 7 + offset) % 120
            value = cache.get_or_make(key, lambda key: key * key)
            if value != key * key:
                errors.append(f"{key}: {value}")
            if step % 500 == offset:
                cache.clear()
            if len(cache) > cache.limit:
                errors.append(f"size {len(cache)}")

    threads = [threading.Thread(target=work, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cache) <= 50


def test_values_of_from_threads_that_also_clear_answers_every_key() -> None:
    cache = BoundedCache[int, int]("tests.values_of_threads", 40)
    errors: list[str] = []

    def work(offset: int) -> None:
        for step in range(400):
            keys = [(step + offset + n * 3) % 90 for n in range(25)]
            if cache.values_of(keys, lambda key: -key) != [-key for key in keys]:
                errors.append(f"step {step}")
            if step % 37 == offset:
                cache.clear()

    threads = [threading.Thread(target=work, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cache) <= 40
