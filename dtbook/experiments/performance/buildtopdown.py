"""Exact BuildTopDownDT ([BLT20]) against a memory-bandwidth floor: the workload, its floor and its target.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dtcore.buildtopdown import InfluenceScorer, build_top_down_dt
from dtcore.cube import truth_table
from dtcore.grow import grow, select_best
from dtcore.functions import majority
from dtcore.validate import check_int
from .common import Benchmark, benchmark_row, profile_top, timed


#: The target distance of exact BuildTopDownDT to its floor (dtcore time / floor time), by scale: at
#: quick scale the floor is a fraction of a millisecond and the fixed cost of a call dominates.
EXACT_FLOOR_TARGET = {"full": 10.0, "quick": 100.0}


def exact_floor_bytes(n: int) -> int:
    """Bytes a level of exact BuildTopDownDT must read at least: f's truth table and its n flip tables
    (bit x of table i: f(x) != f(x xor e_i)), bit-packed, (n + 1) 2^n / 8 bytes.

    At every level the leaves partition the cube, and the statistics of all of them need, for every
    point x, f(x) (the completion's error) and, for every variable i, whether f(x) != f(x xor e_i)
    (the influences)."""
    n = check_int("n", n, 6)
    return (n + 1) * 2**n // 8


def exact_benchmark(*, n_exact: int, exact_leaves: int, repetitions: int,
                    target: float | None = None) -> tuple[Benchmark, pd.DataFrame]:
    """Exact BuildTopDownDT ([BLT20]) on majority of ``n_exact`` bits, against two references.

    The **floor**: one popcount pass (``numpy.bitwise_count`` summed) over :func:`exact_floor_bytes`
    bytes per level of the grown tree, the reading a level-synchronous algorithm cannot avoid; the
    row's ``floor_distance`` is dtcore's time over the floor's. The **peer**: the same algorithm
    grown one leaf at a time by :func:`dtcore.grow.grow` with :class:`~dtcore.buildtopdown.InfluenceScorer`
    (one :meth:`~dtcore.analysis.ExactMeasure.region` call per leaf). The row is self-consistent: the
    trace's final completion error must equal the grown tree's pointwise error, and the tree and
    trace must equal the one-leaf-at-a-time growth's. ``target`` bounds the pinned floor distance.
    Returns the row and the profile of one call."""
    n_exact = check_int("n_exact", n_exact, 7)
    exact_table = truth_table(majority, n_exact)

    def grow_exact():
        return build_top_down_dt(exact_table, eps=1e-12, size=exact_leaves)

    def one_leaf_at_a_time():
        scorer = InfluenceScorer(exact_table)
        return grow(scorer, stop=lambda fr: scorer.done(1e-12), n=n_exact, size=exact_leaves, select=select_best,
                    observe=lambda fr: {"cost": scorer.total_cost, "error": scorer.total_error})

    depth = grow_exact().tree.depth
    # the floor's bytes, written (untouched pages would all read one shared zero page); a popcount
    # costs the same whatever the bits are
    words = exact_floor_bytes(n_exact) // 8
    packed = np.arange(words, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)

    def floor_pass():
        return [int(np.bitwise_count(packed).sum(dtype=np.int64)) for _ in range(depth)]

    times, out = timed({"dtcore": grow_exact, "peer": one_leaf_at_a_time, "floor": floor_pass},
                       repetitions=repetitions)
    res, ref = out["pinned"]["dtcore"], out["pinned"]["peer"]
    pointwise_error = float(np.mean(res.tree.truth_table() != exact_table))
    same_growth = ((res.tree.feature, res.tree.value) == (ref.tree.feature, ref.tree.value)
                   and res.trace.equals(ref.trace))
    deviation = abs(res.trace["error"].iloc[-1] - pointwise_error) + (0.0 if same_growth else 1.0)
    bench = benchmark_row("BuildTopDownDT (exact, uniform)", f"majority n={n_exact}, {exact_leaves} leaves, depth {depth}",
                          "the same growth, one leaf at a time", times, same="self-consistent",
                          check=(f"trace error − truth-table error = {deviation:.3g}; tree and trace "
                                 f"{'equal' if same_growth else 'differ from'} the one-leaf-at-a-time growth's"),
                          deviation=deviation, target=target, target_of="floor distance")
    bench.row["floor_MB_per_level"] = exact_floor_bytes(n_exact) / 2**20
    return bench, profile_top(grow_exact)


#: The largest cube of the exact rows: the truth table and its flip tables take (n + 1) 2^n / 8 bytes.
EXACT_LARGEST_N = 24


def exact_larger_n(scale: str, n_exact: int) -> int | None:
    """The cube dimension of the second exact BuildTopDownDT row: at full scale four variables more than
    ``n_exact`` (sixteen times the tables), at most :data:`EXACT_LARGEST_N`; None at quick scale or when
    ``n_exact`` is already the largest."""
    if scale not in EXACT_FLOOR_TARGET:
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    larger = min(check_int("n_exact", n_exact, 7) + 4, EXACT_LARGEST_N)
    return larger if scale == "full" and larger > n_exact else None


def exact_larger_sentence(bench: Benchmark | None) -> str:
    """The page's sentence on the second exact row, or on why there is none."""
    if bench is None:
        return (f"The full scale adds a row on a cube of four more variables (at most {EXACT_LARGEST_N}), "
                "sixteen times the tables.")
    r = bench.row
    return (f"On the larger cube ({r['size']}) the tree took {r['dtcore_s_pinned'] * 1e3:.0f} ms pinned, "
            f"{r['floor_distance_pinned']:.1f} times its floor of {r['floor_MB_per_level']:.0f} MB a level, "
            f"and {1 / r['ratio_pinned']:.0f} times less than the same growth one leaf at a time.")


def exact_target(scale: str) -> float:
    """The target distance of exact BuildTopDownDT to its floor at ``scale`` (:data:`EXACT_FLOOR_TARGET`)."""
    if scale not in EXACT_FLOOR_TARGET:
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    return EXACT_FLOOR_TARGET[scale]
