"""Tests for dtbook.timing: the book's one interleaved timer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_info

from dtbook.timing import interleaved_times, ratio_table, summarise


def test_interleaves_rotates_and_returns_last_results():
    calls: list[str] = []
    counter = {"a": 0, "b": 0, "c": 0}

    def make(name):
        def fn():
            calls.append(name)
            counter[name] += 1
            return counter[name]
        return fn

    times, out = interleaved_times({k: make(k) for k in "abc"}, 4)
    assert calls == list("abc" "bca" "cab" "abc")
    assert out == {"a": 4, "b": 4, "c": 4}
    assert list(times.columns) == ["name", "rep", "position", "threads", "seconds"]
    assert len(times) == 12 and (times["seconds"] >= 0).all()
    # every candidate is first in some round
    assert set(times.loc[times["position"] == 0, "name"]) == {"a", "b", "c"}


def test_two_candidates_alternate():
    calls: list[str] = []
    interleaved_times({"x": lambda: calls.append("x"), "y": lambda: calls.append("y")}, 4)
    assert calls == list("xyyxxyyx")


def _blas_threads() -> list[int]:
    return [d["num_threads"] for d in threadpool_info() if d["user_api"] == "blas"]


def test_threads_pinned_during_calls_and_restored():
    before = _blas_threads()
    seen = {}
    interleaved_times({"probe": lambda: seen.setdefault("t", _blas_threads())}, 1, threads=1)
    assert seen["t"] and all(t == 1 for t in seen["t"])
    assert _blas_threads() == before
    seen.clear()
    times, _ = interleaved_times({"probe": lambda: seen.setdefault("t", _blas_threads())}, 1, threads=None)
    assert seen["t"] == before and times["threads"].iloc[0] == "default"


def test_restores_threads_after_an_exception():
    before = _blas_threads()

    def boom():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        interleaved_times({"boom": boom}, 2, threads=1)
    assert _blas_threads() == before


def test_summarise_and_ratio():
    times = pd.DataFrame({"name": ["a", "b"] * 5, "rep": np.repeat(np.arange(5), 2),
                          "seconds": [1.0, 2.0, 2.0, 4.0, 3.0, 6.0, 4.0, 8.0, 5.0, 10.0]})
    s = summarise(times).set_index("name")
    assert s.loc["a", "median"] == 3.0 and s.loc["b", "median"] == 6.0
    assert s.loc["a", "min"] == 1.0 and s.loc["a", "max"] == 5.0
    assert s.loc["a", "q25"] == 2.0 and s.loc["a", "q75"] == 4.0 and s.loc["a", "reps"] == 5
    assert np.isclose(s.loc["a", "rel_iqr"], 2.0 / 3.0)
    r = ratio_table(times, "a", "b")
    assert r == {"ratio": 0.5, "ratio_min": 0.5, "ratio_max": 0.5}


@pytest.mark.parametrize("kwargs, name", [
    (dict(candidates={}, repetitions=1), "candidates"),
    (dict(candidates={"a": 3}, repetitions=1), "candidates"),
    (dict(candidates={"a": lambda: 0}, repetitions=0), "repetitions"),
    (dict(candidates={"a": lambda: 0}, repetitions=1, threads=0), "threads"),
])
def test_rejects_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        interleaved_times(**kwargs)


def test_summarise_and_ratio_reject_bad_input():
    times = pd.DataFrame({"name": ["a"], "rep": [0], "seconds": [1.0]})
    with pytest.raises(ValueError, match="times"):
        summarise(times.drop(columns="seconds"))
    with pytest.raises(ValueError, match="'b'"):
        ratio_table(times, "a", "b")
