"""The performance appendix's benchmarks: dtcore against a peer on the same data, outputs compared.

Every benchmark times a dtcore call and its peer's with :func:`dtcore.book.timing.interleaved_times`,
pinned to one thread and at the libraries' default threads (:data:`THREADS`), and compares the two
outputs, so that a speed-up never hides a different answer. A :class:`Benchmark` is one row of the
appendix's ratios table with the tidy times behind it; a :class:`BenchmarkLog` collects them.
Workloads: exact BuildTopDownDT against a memory-bandwidth floor ([BLT20]), TopDown_G against
scikit-learn's best-first tree ([BGLT20] Sec. 1.1), FIND against STreeD ([BLT21] Lemma 3.1), ID3
against scikit-learn's unrestricted tree ([BDM20] Algorithm 1), LocalLearner against the full
TopDownSizeEstimate tree ([BGLT20] Theorem 2), the peak memory of TopDown_G, and the scale rows
(TopDown_G and Est_G, [BGLT20] Theorem 3, on large samples).

Randomness follows the book's rule (:mod:`dtcore.book.seeds`): the page draws each workload's data
from its own keyed stream (:func:`workload_rng`), and a peer that takes a seed gets one keyed by its
benchmark (``"performance/<benchmark>/peer"``), so adding a workload never changes another's data.
"""

from __future__ import annotations

import cProfile
import gc
import io
import pathlib
import pstats
import tracemalloc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ... import exhaustive
from ...audit import worst_case
from ...audit.compare import agreement_up_to_ties, tree_from_sklearn
from ...cube import ProductDistribution
from ...buildtopdown import InfluenceScorer, build_top_down_dt
from ...cube import all_points, truth_table
from ...estimators import OptimalTreeClassifier
from ...find import find, training_errors
from ...grow import grow, select_best
from ...functions import junta, majority, random_tree, random_tree_of_depth
from ...id3 import id3
from ...local import LabelOracle, SharedDraws, est, local_learner, top_down_size_estimate
from ...topdown import depth_cap, top_down
from ...tree import DecisionTree
from ...validate import check_int
from .. import figures, seeds
from ..report import VerificationTable
from ..timing import interleaved_times, summarise
from .performance_users import binarised_data, peak_memory as traced_peak_bytes

#: The two thread settings of every benchmark: BLAS/OpenMP pinned to one thread, and the defaults.
THREADS: dict[str, int | None] = {"pinned": 1, "default": None}
#: The LocalLearner workload: features, size t, minibatch b, strands and queries.
LOCAL = {"n": 24, "t": 32, "b": 200, "strands": 400, "queries": 20}
#: The speed targets of the FIND rows (pinned ratio dtcore / STreeD) at full scale.
FIND_TARGETS = {(4, 32): 0.35, (3, 64): 0.35, (3, 32): 2.0, (5, 16): 0.5}
#: The looser target of every row with a peer at quick scale: on the small quick workloads fixed
#: per-call costs weigh more, so the quick target only asks dtcore not to be slower than its peer.
QUICK_TARGET = 1.0
#: The target of the FIND rows on real-valued data binarised at quantiles (issue 29), full scale.
USER_FIND_TARGET = 0.5
#: The target distance of exact BuildTopDownDT to its floor (dtcore time / floor time), by scale: at
#: quick scale the floor is a fraction of a millisecond and the fixed cost of a call dominates.
EXACT_FLOOR_TARGET = {"full": 10.0, "quick": 100.0}
#: What the identity row of each benchmark measures, by the start of the benchmark's name
#: (the last matching key wins).
QUANTITY = {"BuildTopDownDT": "|trace completion error − truth-table error| + (1 if the tree or trace differs "
                              "from the one-leaf-at-a-time growth)",
            "TopDown_G (": "leaves in one tree but not the other (dtcore vs scikit-learn)",
            "FIND": "|training errors of FIND's tree − STreeD's tree| + |FIND's reported − recomputed|",
            "FIND via OptimalTreeClassifier": "|training errors of the estimator's tree − STreeD's tree|",
            "ID3": "splits that differ without an exact gain tie (dtcore vs scikit-learn)",
            "LocalLearner": "query answers that differ from the full tree's",
            "TopDown_G (gini), scale":
                "leaves that differ between the pinned, default and traced runs (self-consistent)",
            "Est_G": "predictions or labels that differ between the pinned and default runs (self-consistent)"}
#: The two computations each benchmark's agreement row compares, keyed like :data:`QUANTITY`; ``None``
#: where both sides are runs of one dtcore function (other thread counts, traced): a reproducibility
#: observation, since a fault in that function moves both runs alike.
COMPUTED_BY: dict[str, tuple[str, str] | None] = {
    "BuildTopDownDT": ("dtcore.buildtopdown.build_top_down_dt", "dtcore.tree.DecisionTree.truth_table"),
    "TopDown_G (": ("dtcore.topdown.top_down", "sklearn.tree.DecisionTreeClassifier"),
    "FIND": ("dtcore.find.find", "pystreed.STreeDClassifier"),
    "FIND via OptimalTreeClassifier": ("dtcore.estimators.OptimalTreeClassifier", "pystreed.STreeDClassifier"),
    "ID3": ("dtcore.id3.id3", "sklearn.tree.DecisionTreeClassifier"),
    "LocalLearner": ("dtcore.local.local_learner", "dtcore.local.top_down_size_estimate"),
    "TopDown_G (gini), scale": None,
    "Est_G": None}

Times = dict[str, pd.DataFrame]


@dataclass(frozen=True)
class Benchmark:
    """One row of the ratios table (``row``), the tidy times behind it (``times``) and, where a speed
    target can be missed, the dtcore call to profile (``profile``)."""

    row: dict[str, Any]
    times: pd.DataFrame
    profile: Callable[[], object] | None = None


# --------------------------------------------------------------------------------------------
# timing, rows and profiles


def timed(candidates: Mapping[str, Callable[[], object]], *, repetitions: int) -> tuple[Times, dict[str, dict]]:
    """Every candidate timed interleaved in each setting of :data:`THREADS`.

    Returns ``{setting: tidy times}`` and ``{setting: {candidate: its last result}}``.
    """
    times, results = {}, {}
    for setting, threads in THREADS.items():
        times[setting], results[setting] = interleaved_times(candidates, repetitions, threads=threads)
    return times, results


def benchmark_row(benchmark: str, size: str, peer: str, times: Times, *, same: str, check: str, deviation: float,
                  target: float | None = None, profile: Callable[[], object] | None = None,
                  target_of: str = "ratio") -> Benchmark:
    """One row of the ratios table: medians, spreads and ratios for both thread settings.

    ``same`` is "yes"/"no" (outputs compared with the peer's) or "self-consistent" (no peer);
    ``deviation`` is the count (or size) of the disagreement ``check`` describes: 0 when they agree.
    Where ``times`` has a candidate ``"floor"``, the row also gets ``floor_s_<setting>`` and
    ``floor_distance_<setting>`` (dtcore's median over the floor's). ``target_of`` says what
    ``target`` bounds: the pinned ``"ratio"`` or the pinned ``"floor distance"``.
    """
    if target_of not in ("ratio", "floor distance"):
        raise ValueError(f"target_of must be 'ratio' or 'floor distance', got {target_of!r}")
    row = {"benchmark": benchmark, "size": size, "peer": peer, "same_result": same, "check": check,
           "deviation": float(deviation), "target": target, "target_of": target_of}
    frames = []
    for setting, t in times.items():
        t = t.assign(benchmark=benchmark, size=size, setting=setting)
        frames.append(t)
        s = summarise(t).set_index("name")
        row[f"dtcore_s_{setting}"] = s.loc["dtcore", "median"]
        row[f"dtcore_spread_{setting}"] = f"{s.loc['dtcore', 'min']:.3g}–{s.loc['dtcore', 'max']:.3g}"
        if "peer" in s.index:
            row[f"peer_s_{setting}"] = s.loc["peer", "median"]
            per_round = (t[t.name == "dtcore"].set_index("rep")["seconds"]
                         / t[t.name == "peer"].set_index("rep")["seconds"])
            row[f"ratio_{setting}"] = s.loc["dtcore", "median"] / s.loc["peer", "median"]
            row[f"ratio_min_{setting}"], row[f"ratio_max_{setting}"] = per_round.min(), per_round.max()
        if "floor" in s.index:
            row[f"floor_s_{setting}"] = s.loc["floor", "median"]
            row[f"floor_distance_{setting}"] = s.loc["dtcore", "median"] / s.loc["floor", "median"]
    return Benchmark(row, pd.concat(frames, ignore_index=True), profile)


def describe(row: Mapping[str, Any]) -> str:
    """One line per benchmark: both sides' median seconds and the ratio with its range, per setting."""
    parts = [f"{row['benchmark']} ({row['size']}):"]
    for setting in THREADS:
        if f"ratio_{setting}" in row:
            parts.append(f"{setting}: dtcore {row[f'dtcore_s_{setting}']:.3g} s, "
                         f"peer {row[f'peer_s_{setting}']:.3g} s, "
                         f"ratio {row[f'ratio_{setting}']:.3g} [{row[f'ratio_min_{setting}']:.3g}, "
                         f"{row[f'ratio_max_{setting}']:.3g}];")
        else:
            parts.append(f"{setting}: dtcore {row[f'dtcore_s_{setting}']:.3g} s;")
    return " ".join(parts) + f" same result: {row['same_result']} ({row['check']})"


def for_sklearn(X: np.ndarray) -> np.ndarray:
    """scikit-learn's preferred input (Fortran-ordered float32), made outside the timer."""
    return np.asfortranarray(X, dtype=np.float32)


def profile_top(fn: Callable[[], object], k: int = 8) -> pd.DataFrame:
    """The ``k`` functions with the most own time (tottime) in one call of ``fn``, from cProfile."""
    k = check_int("k", k, 1)
    prof = cProfile.Profile()
    prof.runcall(fn)
    stats = pstats.Stats(prof, stream=io.StringIO())
    total = stats.total_tt
    recs = [{"function": (f"{pathlib.Path(f).name}:{line}({name})" if f != "~" else name.strip("<>")),
             "calls": nc, "own_s": tt, "own_share": tt / total, "cumulative_s": ct}
            for (f, line, name), (cc, nc, tt, ct, _) in stats.stats.items()]
    return pd.DataFrame(recs).sort_values("own_s", ascending=False).head(k).set_index("function")


def profile_style(profile: pd.DataFrame) -> object:
    """:func:`profile_top`'s table, formatted for the page."""
    shown = profile.rename(columns={"own_s": "own time (s)", "own_share": "share of the run",
                                    "cumulative_s": "with callees (s)"}).rename_axis("function (file:line)")
    # the function names as a column, not as row headers (they are code, not table headings)
    return shown.reset_index().style.format({"own time (s)": "{:.4f}", "share of the run": "{:.0%}",
                                             "with callees (s)": "{:.3f}"}).hide(axis="index")


def leaf_sets(tree: DecisionTree) -> set[frozenset[tuple[int, int]]]:
    """The leaves of ``tree`` as sets of (variable, value) restrictions: equal iff the trees split alike."""
    return {frozenset((int(i), int(r[i])) for i in np.flatnonzero(r >= 0)) for r in tree.leaf_restrictions()}


def judged_values(ratios: pd.DataFrame) -> np.ndarray:
    """What each row's target bounds: its pinned ratio, or its pinned distance to the floor."""
    floor = ratios["target_of"].to_numpy() == "floor distance"
    return np.where(floor, ratios["floor_distance_pinned"].to_numpy(float), ratios["ratio_pinned"].to_numpy(float))


class BenchmarkLog:
    """The appendix's benchmarks in the order they ran: their rows, their times and the ratios table."""

    def __init__(self) -> None:
        self.benchmarks: list[Benchmark] = []

    def add(self, benchmark: Benchmark) -> Benchmark:
        """Record ``benchmark`` (the page shows the rows in the ratios table; :func:`describe` gives one
        row as a line)."""
        self.benchmarks.append(benchmark)
        return benchmark

    def times(self) -> pd.DataFrame:
        """Every timed call of every benchmark, tidy: name, rep, position, threads, seconds, benchmark,
        size, setting."""
        return pd.concat([b.times for b in self.benchmarks], ignore_index=True)

    def ratios(self, *, scale: str) -> pd.DataFrame:
        """The ratios table: one row per benchmark, with whether its speed target for this ``scale`` is
        met (the pinned ratio, or the pinned distance to the floor, at most the target)."""
        if scale not in ("quick", "full"):
            raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
        ratios = pd.DataFrame([b.row for b in self.benchmarks])
        for setting in THREADS:
            for col in (f"peer_s_{setting}", f"ratio_{setting}", f"ratio_min_{setting}", f"ratio_max_{setting}",
                        f"floor_s_{setting}", f"floor_distance_{setting}"):
                if col not in ratios:
                    ratios[col] = np.nan
        if "target_of" not in ratios:
            ratios["target_of"] = "ratio"
        ratios["judged (pinned)"] = judged_values(ratios)
        ratios["target met (pinned)"] = ["—" if pd.isna(t) else ("yes" if v <= t else "no")
                                         for v, t in zip(ratios["judged (pinned)"], ratios["target"])]
        return ratios

    def missed_target_profiles(self, ratios: pd.DataFrame) -> list[tuple[str, pd.DataFrame | None]]:
        """For every benchmark whose speed target is missed: a message and the profile of its dtcore call."""
        out = []
        for benchmark, (_, row) in zip(self.benchmarks, ratios.iterrows()):
            if row["target met (pinned)"] == "no":
                message = (f"target missed: {row['benchmark']} ({row['size']}), pinned {row['target_of']} "
                           f"{row['judged (pinned)']:.3g} > {row['target']}")
                out.append((message, None if benchmark.profile is None else profile_top(benchmark.profile)))
        return out


# --------------------------------------------------------------------------------------------
# the workloads


def workload_rng(seed: int, workload: str) -> np.random.Generator:
    """The generator of one workload's data under the page's ``seed``: the stream ``"performance/<workload>"``."""
    return seeds.experiment_rng(seed, f"performance/{workload}")


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


def topdown_data(rng: np.random.Generator, *, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``m`` uniform points of {0,1}^n labelled by a random tree with 64 leaves, labels flipped w.p. 0.1."""
    X = (rng.random((m, n), dtype=np.float32) < 0.5).astype(np.uint8)
    target = random_tree(n, 64, rng=rng)
    y = target.predict(X).astype(np.uint8) ^ (rng.random(m) < 0.1).astype(np.uint8)
    return X, y


def topdown_benchmarks(X: np.ndarray, y: np.ndarray, *, t: int, repetitions: int, seed: int,
                       target: float = 0.5) -> list[Benchmark]:
    """TopDown_G ([BGLT20] Sec. 1.1, empirical weighting) against scikit-learn's
    ``DecisionTreeClassifier(max_leaf_nodes=t)``, Gini and entropy: the same leaves (target ratio
    ``target``: 0.5 at full scale, :data:`QUICK_TARGET` at quick)."""
    from sklearn.tree import DecisionTreeClassifier

    X_sk = for_sklearn(X)
    peer_seed = seeds.library_seed(seed, "performance/topdown/peer")
    out_rows = []
    for crit in ("gini", "entropy"):
        def ours(crit: str = crit):
            return top_down(X, y, size=t, impurity=crit)

        def peer(crit: str = crit):
            return DecisionTreeClassifier(max_leaf_nodes=t, criterion=crit, random_state=peer_seed).fit(X_sk, y)

        times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
        a = leaf_sets(out["pinned"]["dtcore"].tree)
        b = leaf_sets(tree_from_sklearn(out["pinned"]["peer"], X.shape[1]))
        out_rows.append(benchmark_row(f"TopDown_G ({crit})", f"{X.shape[0]}x{X.shape[1]}, t={t}",
                                      f"sklearn DecisionTreeClassifier(max_leaf_nodes={t})", times,
                                      same="yes" if a == b else "no", check=f"{len(a ^ b)} leaves differ",
                                      deviation=len(a ^ b), target=target, profile=ours))
    return out_rows


def find_cases(scale: str) -> list[tuple[int, int]]:
    """The (depth, features) of the FIND rows at ``scale``."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    return [(3, 32), (4, 32), (3, 64), (5, 16)] if scale == "full" else [(3, 12), (4, 10), (3, 16), (5, 8)]


def find_target(scale: str, depth: int, n: int) -> float | None:
    """The speed target of the FIND row (depth, n): :data:`FIND_TARGETS` at full scale,
    :data:`QUICK_TARGET` at quick."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    return FIND_TARGETS.get((depth, n)) if scale == "full" else QUICK_TARGET


def find_data(rng: np.random.Generator, *, m: int, n: int, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """``m`` uniform points of {0,1}^n labelled by a random complete tree of ``depth``, 10% label noise."""
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    y = random_tree_of_depth(n, depth, rng=rng).predict(X).astype(np.uint8)
    y ^= (rng.random(m) < 0.1).astype(np.uint8)
    return X, y


def find_benchmark(X: np.ndarray, y: np.ndarray, *, depth: int, repetitions: int, seed: int,
                   target: float | None = None, name: str | None = None, size: str | None = None) -> Benchmark:
    """FIND ([BLT21] Lemma 3.1: least training error at depth d) against pystreed's exact solver with no
    complexity penalty: the two trees' recomputed training errors and FIND's reported one must agree.
    ``name`` and ``size`` label the row (default ``"FIND (d=...)"`` and ``"m x n"``)."""
    from pystreed import STreeDClassifier

    peer_seed = seeds.library_seed(seed, f"performance/find-d{depth}-n{X.shape[1]}/peer")

    def ours():
        return find(X, y, depth=depth)

    def peer():
        return STreeDClassifier(max_depth=depth, cost_complexity=0.0, random_seed=peer_seed).fit(X, y)

    times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
    res, streed = out["pinned"]["dtcore"], out["pinned"]["peer"]
    find_err = int(training_errors(res.tree, X, y))
    streed_err = int((streed.predict(X) != y).sum())
    same = find_err == streed_err == int(round(res.errors))
    return benchmark_row(name or f"FIND (d={depth})", size or f"{X.shape[0]}x{X.shape[1]}",
                         f"pystreed STreeDClassifier(max_depth={depth})", times, same="yes" if same else "no",
                         check=f"training errors {find_err} / {streed_err}",
                         deviation=abs(find_err - streed_err) + abs(find_err - res.errors), target=target,
                         profile=ours)


def id3_cases(*, m_id3: int, n_id3: int, m_id3_large: int, n_id3_large: int,
              scale: str = "full") -> list[tuple[str, int, int, float, float | None]]:
    """The ID3 workloads (name, m, n, label noise, target ratio): the junta without noise, with 10%
    noise (target 0.2), and on the larger sample with 20% noise (target 0.15); at quick scale the
    noisy rows' target is :data:`QUICK_TARGET`."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    quick = scale == "quick"
    return [("ID3 (7-junta)", m_id3, n_id3, 0.0, None),
            ("ID3 (7-junta, 10% noise)", m_id3, n_id3, 0.1, QUICK_TARGET if quick else 0.2),
            ("ID3 (7-junta, 20% noise)", m_id3_large, n_id3_large, 0.2, QUICK_TARGET if quick else 0.15)]


def junta_variables(rng: np.random.Generator, n: int) -> np.ndarray:
    """The 7 relevant variables of the ID3 junta, drawn among the first ``n``, sorted."""
    return np.sort(rng.choice(n, 7, replace=False))


def id3_data(rng: np.random.Generator, variables: np.ndarray, *, m: int, n: int,
             noise: float) -> tuple[np.ndarray, np.ndarray]:
    """``m`` uniform points of {0,1}^n labelled by the weighted threshold [sum_j j x_{i_j} >= 14] on the 7
    ``variables`` ([BDM20]'s monotone junta), each label flipped with probability ``noise``."""
    table = (all_points(7) @ np.arange(1.0, 8.0) >= 14).astype(np.uint8)
    X = (rng.random((m, n), dtype=np.float32) < 0.5).astype(np.uint8)
    y = junta(X, variables, table).astype(np.uint8) ^ (rng.random(m) < noise).astype(np.uint8)
    return X, y


def id3_benchmark(name: str, X: np.ndarray, y: np.ndarray, *, repetitions: int, seed: int,
                  target: float | None) -> Benchmark:
    """ID3 ([BDM20] Algorithm 1, Gini, grown until pure) against scikit-learn's unrestricted tree: the
    same split at every node up to exact gain ties (:func:`dtcore.audit.compare.agreement_up_to_ties`)."""
    from sklearn.tree import DecisionTreeClassifier

    X_sk = for_sklearn(X)
    peer_seed = seeds.library_seed(seed, f"performance/{name}/peer")

    def ours():
        return id3(X, y, impurity="gini")

    def peer():
        return DecisionTreeClassifier(criterion="gini", random_state=peer_seed).fit(X_sk, y)

    times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
    a, b = out["pinned"]["dtcore"].tree, tree_from_sklearn(out["pinned"]["peer"], X.shape[1])
    agreement = agreement_up_to_ties(a, b, X, y, "gini")
    return benchmark_row(name, f"{X.shape[0]}x{X.shape[1]}", "sklearn DecisionTreeClassifier() (unrestricted)", times,
                         same="yes" if agreement.same else "no",
                         check=f"{agreement.matched} nodes agree, {agreement.ties} exact ties, "
                               f"{agreement.differences} differences; leaves {a.size} / {b.size}",
                         deviation=agreement.differences, target=target, profile=ours)


#: The data sets of the rows on real-valued data, as the page names them.
DATASET_NAMES = {"breast_cancer": "breast cancer", "make_classification": "make_classification"}


def user_find_cases(scale: str) -> list[dict[str, Any]]:
    """The FIND rows on real-valued data binarised at quantile cut points (issue 29), at ``scale``.

    Each case: ``dataset``, ``rows`` (None: all), ``cuts`` per column, ``depth``, ``via``
    (``"features"``: FIND on the pre-binarised features; ``"estimator"``:
    ``OptimalTreeClassifier.fit`` on the real-valued data, binarisation on its clock) and
    ``target`` (:data:`USER_FIND_TARGET` at full scale, :data:`QUICK_TARGET` at quick, except the
    estimator at depth 2 on breast cancer, whose workload is the same at both scales and is judged
    against :data:`USER_FIND_TARGET` at both). Full scale: breast cancer (569 x 30) at depth 2 and 3
    with 4 and 8 cuts, both ways, and make_classification 50,000 x 30 at 8 cuts, depth 3, through the
    estimator. Quick scale keeps the cases whose peer takes well under a second: breast cancer at 4
    cuts, depth 3, both ways, the estimator at depth 2 with 4 and 8 cuts, and make_classification
    1,000 x 30 at 4 cuts, depth 3, through the estimator."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    if scale == "full":
        grid = [("breast_cancer", None, cuts, depth, via) for via in ("features", "estimator")
                for cuts in (4, 8) for depth in (2, 3)]
        grid.append(("make_classification", 50_000, 8, 3, "estimator"))
    else:
        grid = [("breast_cancer", None, 4, 3, "features"), ("breast_cancer", None, 4, 3, "estimator"),
                ("breast_cancer", None, 4, 2, "estimator"), ("breast_cancer", None, 8, 2, "estimator"),
                ("make_classification", 1_000, 4, 3, "estimator")]

    def target(dataset: str, depth: int, via: str) -> float:
        same_at_both_scales = dataset == "breast_cancer" and depth == 2 and via == "estimator"
        return USER_FIND_TARGET if scale == "full" or same_at_both_scales else QUICK_TARGET

    return [{"dataset": d, "rows": r, "cuts": c, "depth": k, "via": v, "target": target(d, k, v)}
            for d, r, c, k, v in grid]


def user_find_benchmark(case: Mapping[str, Any], *, repetitions: int, seed: int) -> Benchmark:
    """One case of :func:`user_find_cases` against pystreed's ``STreeDClassifier(max_depth=d,
    cost_complexity=0)`` on the same binarised features (its own encoding inside ``fit`` is part of its
    time). The same result: equal training errors, recomputed from both trees' predictions. Through
    the estimator, the row also records the peak memory of one ``fit`` (``tracemalloc``) as
    ``peak_MB``."""
    from pystreed import STreeDClassifier

    dataset, cuts, depth, via = case["dataset"], int(case["cuts"]), int(case["depth"]), case["via"]
    if via not in ("features", "estimator"):
        raise ValueError(f"via must be 'features' or 'estimator', got {via!r}")
    X_real, Xb, y = binarised_data(dataset, cuts=cuts, rows=case["rows"],
                                   rng=workload_rng(seed, f"user-{dataset}-{case['rows']}"))
    label = f"{DATASET_NAMES[dataset]} {X_real.shape[0]:,}×{X_real.shape[1]}, {cuts} cuts ({Xb.shape[1]} features)"
    if via == "features":
        return find_benchmark(Xb, y, depth=depth, repetitions=repetitions, seed=seed, target=case["target"],
                              name=f"FIND (d={depth}), binarised", size=label)
    peer_seed = seeds.library_seed(seed, f"performance/user-{dataset}-c{cuts}-d{depth}/peer")

    def ours():
        return OptimalTreeClassifier(max_depth=depth, n_thresholds=cuts).fit(X_real, y)

    def peer():
        return STreeDClassifier(max_depth=depth, cost_complexity=0.0, random_seed=peer_seed).fit(Xb, y)

    times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
    mine = int((out["pinned"]["dtcore"].predict(X_real) != y).sum())
    theirs = int((out["pinned"]["peer"].predict(Xb) != y).sum())
    peak = traced_peak_bytes(ours) / 2**20
    bench = benchmark_row(f"FIND via OptimalTreeClassifier (d={depth})", label + ", real-valued input",
                          f"pystreed STreeDClassifier(max_depth={depth}) on the binarised features", times,
                          same="yes" if mine == theirs else "no",
                          check=f"training errors {mine} / {theirs}; peak memory of fit {peak:.0f} MB",
                          deviation=abs(mine - theirs), target=case["target"], profile=ours)
    bench.row["peak_MB"] = peak
    return bench


def local_benchmark(rng: np.random.Generator, *, size: int, repetitions: int) -> tuple[Benchmark, dict[str, int]]:
    """LocalLearner ([BGLT20] Theorem 2) answering :data:`LOCAL` ``["queries"]`` queries one by one on an
    unlabelled set of ``size`` points, against building the full TopDownSizeEstimate tree with the same
    shared randomness: the answers must equal the full tree's. Also returns the distinct labels each
    side asked for."""
    n, t, b = LOCAL["n"], LOCAL["t"], LOCAL["b"]
    X = (rng.random((size, n), dtype=np.float32) < 0.5).astype(np.uint8)
    y = random_tree(n, t, rng=rng).predict(X).astype(np.uint8)
    draws = SharedDraws.draw(size, n, LOCAL["strands"], rng=rng)
    queries = (rng.random((LOCAL["queries"], n)) < 0.5).astype(np.uint8)
    oracles: dict[str, LabelOracle] = {}

    def ours():
        oracles["local"] = LabelOracle.from_labels(y)
        return [local_learner(X, oracles["local"], size=t, batch_size=b, x_star=q, draws=draws).labels[0] for q in queries]

    def peer():
        oracles["full"] = LabelOracle.from_labels(y)
        return top_down_size_estimate(X, oracles["full"], size=t, batch_size=b, draws=draws)

    times, out = timed({"dtcore": ours, "peer": peer}, repetitions=repetitions)
    answers, full = out["pinned"]["dtcore"], out["pinned"]["peer"]
    wrong = int((np.array(answers, dtype=np.uint8) != full.tree.predict(queries).astype(np.uint8)).sum())
    bench = benchmark_row(f"LocalLearner ({LOCAL['queries']} queries)", f"|S°|={size}",
                          "TopDownSizeEstimate (full tree)", times, same="yes" if wrong == 0 else "no",
                          check=f"{wrong} of {LOCAL['queries']} answers differ", deviation=wrong)
    labels = {"size": size, "labels_local": oracles["local"].labelled, "labels_full_tree": oracles["full"].labelled,
              "labels_training": size, "answers_differ": wrong}
    return bench, labels


def local_figure(local_labels: pd.DataFrame) -> plt.Figure:
    """Distinct points LocalLearner ([BGLT20] Theorem 2) and the full tree label, against |S°|."""
    fig, ax = figures.figure(1, height=4.0)
    ax.loglog(local_labels["size"], local_labels["labels_training"], "k--", label="ordinary training: |S°|")
    ax.loglog(local_labels["size"], local_labels["labels_full_tree"], "s-", label="TopDownSizeEstimate (full tree)")
    ax.loglog(local_labels["size"], local_labels["labels_local"], "o-",
              label=f"LocalLearner, {LOCAL['queries']} queries")
    ax.set(xlabel="size of the unlabelled set |S°|", ylabel="distinct points labelled",
           title="Labels queried against |S°|")
    sizes = local_labels["size"].tolist()
    ax.set_xticks(sizes, [f"{v:,}" for v in sizes])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    counts = local_labels[["labels_training", "labels_full_tree", "labels_local"]].to_numpy()
    ticks = [v * 10**k for k in range(2, 9) for v in (1, 2, 5) if counts.min() / 1.5 <= v * 10**k <= counts.max() * 1.5]
    ax.set_yticks(ticks, [f"{v:,}" for v in ticks])
    ax.yaxis.set_minor_locator(plt.NullLocator())
    ax.legend(loc="upper left")
    return fig


def peak_memory(X: np.ndarray, y: np.ndarray, *, t: int) -> pd.DataFrame:
    """Peak allocation of TopDown_G ([BGLT20] Sec. 1.1) under ``tracemalloc`` on the first quarter, half
    and all of the sample, against its input's bytes; the traced tree must equal an untraced one."""
    rows = []
    timed_leaves = leaf_sets(top_down(X, y, size=t).tree)
    for frac in (0.25, 0.5, 1.0):
        m = max(100, int(X.shape[0] * frac))
        Xm, ym = X[:m], y[:m]
        gc.collect()
        tracemalloc.start()
        res = top_down(Xm, ym, size=t, impurity="gini")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        input_bytes = Xm.nbytes + ym.nbytes
        reference = timed_leaves if m == X.shape[0] else leaf_sets(top_down(Xm, ym, size=t).tree)
        rows.append({"m": m, "input_MB": input_bytes / 2**20, "peak_MB": peak / 2**20,
                     "peak_over_input": peak / input_bytes, "leaves_differ": len(leaf_sets(res.tree) ^ reference)})
    return pd.DataFrame(rows)


def memory_style(memory: pd.DataFrame) -> object:
    """:func:`peak_memory`'s table, formatted for the page."""
    shown = memory.rename(columns={"input_MB": "input (MB)", "peak_MB": "peak (MB)", "peak_over_input": "peak / input",
                                   "leaves_differ": "leaves that differ"})
    return shown.style.format({"input (MB)": "{:.1f}", "peak (MB)": "{:.1f}", "peak / input": "{:.2f}"}).hide(axis="index")


def memory_figure(memory: pd.DataFrame, *, n: int, t: int) -> plt.Figure:
    """TopDown_G's peak memory divided by its input's size, against the input's size."""
    fig, ax = figures.figure(1, height=4.0)
    ax.plot(memory["input_MB"], memory["peak_over_input"], "o-", label="TopDown_G peak / input (tracemalloc)")
    ax.axhline(1.0, color="k", ls="--", lw=1, label="peak = input size")
    ax.set(xlabel="input size (MB)", ylabel="peak memory / input size",
           ylim=(0, max(1.2, float(memory["peak_over_input"].max()) * 1.2)),
           title=f"Peak memory of TopDown_G, n={n}, t={t}")
    ax.legend(loc="upper right")
    return fig


def scale_topdown(rng: np.random.Generator, *, m: int, repetitions: int) -> tuple[Benchmark, dict[str, Any]]:
    """TopDown_G ([BGLT20] Sec. 1.1) on ``m`` points x 64 features, t = 256, no peer: the pinned, default
    and ``tracemalloc``-traced runs must grow the same tree. Also returns its peak memory row."""
    n, t = 64, 256
    X = rng.integers(0, 2, (m, n), dtype=np.uint8)  # no float copy of 10^7 x 64
    y = random_tree(n, 64, rng=rng).predict(X).astype(np.uint8) ^ (rng.random(m) < 0.1).astype(np.uint8)
    times, out = timed({"dtcore": lambda: top_down(X, y, size=t)}, repetitions=repetitions)
    leaves = [leaf_sets(out[s]["dtcore"].tree) for s in THREADS]
    gc.collect()
    tracemalloc.start()
    traced = top_down(X, y, size=t)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    differ = len(leaves[0] ^ leaves[1]) + len(leaves[0] ^ leaf_sets(traced.tree))
    bench = benchmark_row("TopDown_G (gini), scale", f"{m}x{n}, t={t}", "— (self-consistent)", times,
                          same="self-consistent",
                          check=f"{differ} leaves differ between the pinned, default and traced runs", deviation=differ)
    input_bytes = X.nbytes + y.nbytes
    row = {"row": "TopDown_G", "m": m, "peak_MB": peak / 2**20, "input_MB": input_bytes / 2**20,
           "peak_over_input": peak / input_bytes, "seconds_pinned": bench.row["dtcore_s_pinned"], "labels": m}
    return bench, row


def scale_est(rng: np.random.Generator, *, m: int, repetitions: int) -> tuple[Benchmark, dict[str, Any]]:
    """Est_G ([BGLT20] Theorem 3) with an unlabelled set of ``m`` points and 200 test queries, no peer:
    the pinned and default runs must give the same predictions and labels. Also returns its labels and
    time per query."""
    n, t, b, n_test = 24, 32, 200, 200
    X = rng.integers(0, 2, (m, n), dtype=np.uint8)
    target = random_tree(n, t, rng=rng)
    y = target.predict(X).astype(np.uint8)
    X_test = (rng.random((n_test, n)) < 0.5).astype(np.uint8)
    y_test = target.predict(X_test).astype(np.uint8)
    draws = SharedDraws.draw(m, n, 400, rng=rng)
    times, out = timed({"dtcore": lambda: est(X, LabelOracle.from_labels(y), size=t, batch_size=b, X_test=X_test, y_test=y_test, draws=draws)},
                       repetitions=repetitions)
    a, c = out["pinned"]["dtcore"], out["default"]["dtcore"]
    differ = int((a.predictions != c.predictions).sum()) + abs(a.labelled - c.labelled)
    bench = benchmark_row("Est_G, scale", f"|S°|={m}, {n_test} test points", "— (self-consistent)", times,
                          same="self-consistent",
                          check=f"{differ} predictions or labels differ between the pinned and default runs",
                          deviation=differ)
    seconds = bench.row["dtcore_s_pinned"]
    row = {"row": "Est_G", "m": m, "labels": a.labelled, "estimate": a.error, "seconds_pinned": seconds,
           "seconds_per_query": seconds / n_test}
    return bench, row


def scale_style(scale_rows: pd.DataFrame) -> object:
    """The scale rows' table, formatted for the page."""
    return scale_rows.style.format(precision=3, na_rep="—").hide(axis="index")


# --------------------------------------------------------------------------------------------
# the ratios table, its figure and the verification rows

def _ratio_text(ratio: float, low: float, high: float) -> str:
    return "—" if pd.isna(ratio) else f"{ratio:.2g} ({low:.2g}–{high:.2g})"


def ratios_style(ratios: pd.DataFrame) -> object:
    """The ratios table as the page shows it, narrow enough for a phone: one row per benchmark with the
    pinned ratio and its per-round range, the ratio at default threads, the distance to the floor,
    the target (of the ratio, or of the floor distance where the row has a floor), whether it is met,
    and whether the outputs agree. :func:`seconds_style` gives the times behind the ratios."""
    shown = pd.DataFrame({
        "Benchmark": [f"{b}, {s}" for b, s in zip(ratios["benchmark"], ratios["size"])],
        "Ratio, pinned (range)": [_ratio_text(r, lo, hi) for r, lo, hi in
                                  zip(ratios["ratio_pinned"], ratios["ratio_min_pinned"], ratios["ratio_max_pinned"])],
        "Ratio, default threads": ratios["ratio_default"],
        "Distance to the floor": ratios["floor_distance_pinned"],
        "Target": [("—" if pd.isna(t) else (f"≤ {t:g}" + (" (floor)" if of == "floor distance" else "")))
                   for t, of in zip(ratios["target"], ratios["target_of"])],
        "Met": ratios["target met (pinned)"],
        "Same result": ratios["same_result"],
    })
    return (shown.style.format({"Ratio, default threads": "{:.2g}", "Distance to the floor": "{:.1f}"}, na_rep="—")
            .hide(axis="index"))


def seconds_style(ratios: pd.DataFrame) -> object:
    """The median seconds behind the ratios table: dtcore, its peer and the floor, pinned and at default
    threads."""
    shown = pd.DataFrame({"Benchmark": [f"{b}, {s}" for b, s in zip(ratios["benchmark"], ratios["size"])],
                          "dtcore, pinned": ratios["dtcore_s_pinned"], "peer, pinned": ratios["peer_s_pinned"],
                          "floor, pinned": ratios["floor_s_pinned"], "dtcore, default": ratios["dtcore_s_default"],
                          "peer, default": ratios["peer_s_default"]})
    numeric = [c for c in shown.columns if c != "Benchmark"]
    return shown.style.format({c: _seconds for c in numeric}, na_rep="—").hide(axis="index")


def _seconds(value: float) -> str:
    return "—" if pd.isna(value) else (f"{value * 1e3:.3g} ms" if value < 1 else f"{value:.3g} s")


def ratios_figure(ratios: pd.DataFrame) -> plt.Figure:
    """dtcore / peer time ratios of every benchmark with a peer, both thread settings, with the targets."""
    paired = ratios[ratios["ratio_pinned"].notna()].reset_index(drop=True)
    fig, ax = figures.figure(1, height=min(12.0, 0.55 * len(paired) + 2.4))
    ypos = np.arange(len(paired))
    for k, (setting, color) in enumerate(zip(THREADS, sns.color_palette()[:2])):
        r = paired[f"ratio_{setting}"].to_numpy(float)
        err = np.vstack([r - paired[f"ratio_min_{setting}"].to_numpy(float),
                         paired[f"ratio_max_{setting}"].to_numpy(float) - r])
        ax.barh(ypos + (k - 0.5) * 0.38, r, height=0.38, xerr=err, color=color, capsize=2,
                label=f"dtcore / peer, {setting} threads (median; bar: per-round range)")
    has_target = (paired["target"].notna() & (paired["target_of"] == "ratio")).to_numpy()
    ax.scatter(paired.loc[has_target, "target"], ypos[has_target], marker="|", s=300, color="crimson", zorder=3,
               label="target ratio (pinned, this scale)")
    ax.axvline(1.0, color="k", lw=0.8, ls="--")
    ax.set_xscale("log")
    decades = np.log10([float(np.nanmin(paired[[f"ratio_min_{s}" for s in THREADS]].to_numpy(float))),
                        float(np.nanmax(paired[[f"ratio_max_{s}" for s in THREADS]].to_numpy(float))) * 3])
    ticks = [10.0**k for k in range(int(np.floor(decades[0])), int(np.ceil(decades[1])) + 1)]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())   # decade labels only: no "4×10⁰" crowding
    ax.set_xlim(ticks[0], ticks[-1])
    ax.set_yticks(ypos, [f"{b}\n{s.split(' (')[0]}" for b, s in zip(paired["benchmark"], paired["size"])], fontsize=7)
    ax.invert_yaxis()
    ax.set(xlabel="time ratio dtcore / peer (log scale; below 1: dtcore is faster)")
    # the first rows (exact BuildTopDownDT, TopDown_G, FIND) sit well below 1: their right is free
    ax.legend(loc="upper right", fontsize=7, framealpha=0.95)
    return fig


def ratio_glue_values(ratios: pd.DataFrame, *, scale: str) -> dict[str, str]:
    """The closing note's sentences: every ratio measured, the speed targets missed (judged at this
    ``scale``, against its targets) and :func:`targets_note`."""
    paired = ratios[ratios["ratio_pinned"].notna()]
    summary = "; ".join(f"{b} ({s}): {rp:.3g} pinned, {rd:.3g} default threads" for b, s, rp, rd in
                        zip(paired["benchmark"], paired["size"], paired["ratio_pinned"], paired["ratio_default"]))
    missed = ratios[ratios["target met (pinned)"] == "no"]
    if missed.empty:
        missed_text = "none"
    else:
        missed_text = "; ".join(f"{b} ({s}): {of} {r:.3g} against {t:g}" for b, s, of, r, t in
                                zip(missed["benchmark"], missed["size"], missed["target_of"],
                                    missed["judged (pinned)"], missed["target"]))
    return {"app_summary": summary, "app_missed": missed_text, "app_targets_note": targets_note(ratios, scale=scale)}


def targets_note(ratios: pd.DataFrame, *, scale: str) -> str:
    """Whether this run's speed targets (those of its ``scale``) are met, as a sentence."""
    if scale not in ("quick", "full"):
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    judged = int((ratios["target met (pinned)"] != "—").sum())
    met = int((ratios["target met (pinned)"] == "yes").sum())
    which = ("the quick-scale targets (looser than the full-scale ones: fixed per-call costs weigh more on "
             "small workloads)" if scale == "quick" else "the full-scale targets")
    if met == judged:
        return f"All {judged} of {which} are met in this run."
    return f"{met} of {judged} of {which} are met in this run; the profiles of the missed ones are below."


def _matching(table: Mapping[str, Any], benchmark: str) -> Any:
    # The entry of the last key the benchmark's name starts with (QUANTITY, COMPUTED_BY).
    return [value for key, value in table.items() if benchmark.startswith(key)][-1]


def check_agreement(table: VerificationTable, ratios: pd.DataFrame) -> None:
    """A row per benchmark: dtcore's output against its peer's, or against a second computation of its
    own (deviation 0). An identity when two independent computations are compared (:data:`COMPUTED_BY`);
    an observation when both sides are runs of one function under other conditions, which only shows
    that the run is reproducible."""
    for _, row in ratios.iterrows():
        quantity = _matching(QUANTITY, row["benchmark"])
        computed_by = _matching(COMPUTED_BY, row["benchmark"])
        result = f"{row['benchmark']} ({row['size']})"
        if computed_by is None:
            table.observation(result, quantity, row["deviation"], 0.0,
                              why="one dtcore function run twice (other thread counts, traced): a fault in it "
                                  f"moves both runs alike, so this shows reproducibility only ({row['check']})")
        else:
            table.identity(result, quantity, row["deviation"], 0.0, computed_by=computed_by, note=row["check"])


def check_memory(table: VerificationTable, memory: pd.DataFrame) -> None:
    """An observation per traced TopDown_G run: its tree against the untraced one's (the same function,
    so a fault moves both; the row shows that tracing changes nothing)."""
    for _, row in memory.iterrows():
        table.observation(f"TopDown_G peak memory (m={int(row['m'])})",
                          "leaves in the traced tree but not the timed one", float(row["leaves_differ"]), 0.0,
                          why="top_down run with and without tracemalloc: a fault in it moves both runs alike, "
                              "so the row shows only that tracing changes nothing")


def local_label_reach(size: int) -> int:
    """The most distinct points of S° the :data:`LOCAL` workload can label: one minibatch of b points per
    node of depth at most D (:func:`dtcore.topdown.depth_cap` of t), and never more than |S°|."""
    return min(int(size), LOCAL["b"] * 2 ** (depth_cap(LOCAL["t"]) + 1))


def check_local_labels(table: VerificationTable, local_labels: pd.DataFrame) -> None:
    """LocalLearner ([BGLT20] Theorem 2, App. D) reads only the minibatches of leaves its strands and
    queries reach, which the full tree also reads: its distinct labels are at most the full tree's (a
    theorem row while that is below the reach, :func:`local_label_reach`; else an observation).

    With :data:`LOCAL`'s 400 strands every leaf the full tree grows is reached by a strand, so the two
    counts are equal: the rows are flagged tight by construction (never the closest call)."""
    for _, row in local_labels.iterrows():
        quantity = f"distinct labels of {LOCAL['queries']} LocalLearner queries, |S°| = {row['size']}"
        reach = local_label_reach(row["size"])
        if row["labels_full_tree"] < reach:
            table.theorem("[BGLT20] Theorem 2, LocalLearner", quantity + " (bound: labels of the full tree)",
                          row["labels_local"], row["labels_full_tree"], reach=(0, reach), relation="<=",
                          measured_by="dtcore.local.local_learner", bound_by="dtcore.local.top_down_size_estimate",
                          worst_case=f"t = {LOCAL['t']}, b = {LOCAL['b']}, {LOCAL['strands']} strands, "
                                     f"|S°| = {row['size']}",
                          tight_by_construction=f"the {LOCAL['strands']} strands reach every leaf the full tree "
                                                "grows, so LocalLearner reads the same minibatches",
                          note="reach: one minibatch of b points per node of depth at most D, and at most |S°|")
        else:
            table.observation("[BGLT20] Theorem 2, LocalLearner", quantity, row["labels_local"],
                              row["labels_full_tree"],
                              why="the full tree labels every point LocalLearner could label, so the bound is the "
                                  "whole reach")


def check_targets(table: VerificationTable, ratios: pd.DataFrame, scale_rows: pd.DataFrame) -> None:
    """The speed and memory targets, as observations: targets we set ourselves, never asserted."""
    for _, row in ratios[ratios["target"].notna()].iterrows():
        quantity = ("time ratio dtcore / floor, pinned (speed target)" if row["target_of"] == "floor distance"
                    else "time ratio dtcore / peer, pinned (speed target)")
        table.observation(f"{row['benchmark']} ({row['size']})", quantity, row["judged (pinned)"], row["target"],
                          why="a speed target we set ourselves, not a theorem; times vary with the machine's load; "
                              "times are never asserted")
    if not scale_rows.empty:
        table.observation("TopDown_G, scale", "peak memory / input bytes (target 1.2)",
                          float(scale_rows["peak_over_input"].iloc[0]), 1.2,
                          why="a memory target we set ourselves, not a theorem")


def assert_outputs_agree(ratios: pd.DataFrame, *, n_rows: int) -> str:
    """Raise ``AssertionError`` if any benchmark's output differs from its peer's; else say how many agreed."""
    differing = ratios.loc[ratios["same_result"] == "no", ["benchmark", "size", "check"]]
    assert differing.empty, differing
    compared = int((ratios["same_result"] == "yes").sum())
    alone = len(ratios) - compared
    return (f"All {n_rows} rows hold; the outputs agree in all {compared} compared benchmark rows "
            f"and {alone} {'row is' if alone == 1 else 'rows are'} self-consistent.")


#: The passes of the exhaustive layer timed by :func:`exhaustive_throughput`, each over every function.
EXHAUSTIVE_PASSES = ("minimum size and depth (DP over subcubes)", "influences on every subcube, uniform",
                     "influences on every subcube, a product measure", "Fourier spectra, uniform",
                     "BuildTopDownDT on every function", "TopDown_G (Gini) on every function")


def exhaustive_throughput(*, n: int = 4, repetitions: int) -> pd.DataFrame:
    """Functions per second of each pass of the exhaustive layer over every Boolean function on ``n``
    variables (issue 22's budget; the page "Every function on four variables"): pinned to one thread,
    interleaved rounds, the median and the spread of each pass. No peer computes these quantities for
    every function at once, so there is no ratio: the row reports the throughput and the time of one
    whole pass."""
    n = check_int("n", n, 1, exhaustive.MAX_ALL_FUNCTIONS_VARIABLES)
    tables = exhaustive.all_tables(n)
    skewed = ProductDistribution(np.linspace(0.1, 0.9, n))
    passes: dict[str, Callable[[], object]] = dict(zip(EXHAUSTIVE_PASSES, (
        lambda: exhaustive.optimal_trees(tables),
        lambda: exhaustive.subcube_statistics(tables),
        lambda: exhaustive.subcube_statistics(tables, skewed, "rerandomised"),
        lambda: exhaustive.fourier_spectra(tables),
        lambda: worst_case.heuristic_sizes(tables, "BuildTopDownDT"),
        lambda: worst_case.heuristic_sizes(tables, "TopDown_G gini"),
    )))
    times, _ = interleaved_times(passes, repetitions=check_int("repetitions", repetitions, 1), threads=1)
    out = summarise(times).rename(columns={"name": "pass"})
    out["functions"] = len(tables)
    out["functions per second"] = len(tables) / out["median"]
    return out[["pass", "functions", "median", "min", "max", "functions per second"]]


def exhaustive_style(throughput: pd.DataFrame):
    """The throughput table with readable headers and rounded numbers."""
    shown = throughput.rename(columns={"median": "median s", "min": "fastest s", "max": "slowest s"})
    shown["thousand functions per s"] = shown.pop("functions per second") / 1000
    return shown.style.format({"median s": "{:.3f}", "fastest s": "{:.3f}", "slowest s": "{:.3f}",
                               "thousand functions per s": "{:,.0f}", "functions": "{:,}"}).hide(axis="index")


# --------------------------------------------------------------------------------------------
# issue 29, the scale statement: how FIND's and ID3's time and memory grow with rows, features, depth

#: The grids of the scale statement, by scale. FIND: for each depth d, its rows m and features n,
#: chosen so that the fastest point takes milliseconds (well above the timer and FIND's fixed cost per
#: call, which would bend a power law) and the slowest seconds at most; ID3: its rows and features.
#: Every point is timed ``repetitions`` times and the fastest run kept (the run least disturbed by
#: the machine's other load).
SCALE_GRIDS = {
    "quick": {"find": {2: ((20_000, 80_000), (16, 32)), 3: ((10_000, 40_000), (12, 24)), 4: ((2_000, 8_000), (10, 20))},
              "id3_rows": (5_000, 20_000), "id3_features": (16, 32), "repetitions": 3},
    "full": {"find": {2: ((20_000, 40_000, 80_000, 160_000), (16, 32, 64)),
                      3: ((10_000, 20_000, 40_000, 80_000), (16, 24, 32)),
                      4: ((2_500, 5_000, 10_000, 20_000), (8, 16, 32)),
                      5: ((2_500, 5_000, 10_000, 20_000), (8, 16, 32))},
             "id3_rows": (10_000, 100_000, 1_000_000), "id3_features": (16, 32, 64), "repetitions": 5},
}
#: A fit of log time (or log memory) with R² below this is called poor on the page.
POOR_FIT_R2 = 0.9


def scale_statement(rng: np.random.Generator, *, scale: str,
                    repetitions: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """FIND and ID3 timed (fastest of ``repetitions``, default the grid's; BLAS and OpenMP pinned to one
    thread) and traced (peak memory, ``tracemalloc``) on the :data:`SCALE_GRIDS` grid of ``scale``,
    with the fitted exponents of time ~ m^a n^b and memory ~ m^a n^b per algorithm (and depth).

    FIND: uniform points labelled by a random depth-d tree, 10% label noise; ID3: the 7-junta with
    20% label noise (:mod:`dtcore.book.experiments.performance_users`). Returns (grid, fits); the
    fits have one row per algorithm and depth, ``seconds_at_1000x10`` and ``MB_at_1000x10`` being the
    fitted values at m = 1,000, n = 10, ``time_r2`` and ``memory_r2`` the fits' R² on the log scale."""
    from threadpoolctl import threadpool_limits

    from .performance_users import find_scale_grid, fit_exponents, id3_scale_grid

    if scale not in SCALE_GRIDS:
        raise ValueError(f"scale must be 'quick' or 'full', got {scale!r}")
    g = SCALE_GRIDS[scale]
    repetitions = g["repetitions"] if repetitions is None else check_int("repetitions", repetitions, 1)
    with threadpool_limits(1):
        parts = [find_scale_grid(rows=rows, features=features, depths=(d,), repetitions=repetitions, rng=rng)
                 for d, (rows, features) in g["find"].items()]
        parts.append(id3_scale_grid(rows=g["id3_rows"], features=g["id3_features"], repetitions=repetitions, rng=rng))
    grid = pd.concat(parts, ignore_index=True)
    grid["label"] = [a if pd.isna(d) else f"{a} d={int(d)}" for a, d in zip(grid["algorithm"], grid["d"])]
    grid["peak_MB"] = grid["peak_bytes"] / 2**20
    fits = []
    for label, part in grid.groupby("label", sort=False):
        time_fit = fit_exponents(part).iloc[0]
        memory_fit = fit_exponents(part, value="peak_MB").iloc[0]
        fits.append({"label": label, "time_rows": time_fit["rows_exponent"], "time_features": time_fit["features_exponent"],
                     "seconds_at_1000x10": time_fit["at_1000x10"], "time_r2": time_fit["r2_log"],
                     "memory_rows": memory_fit["rows_exponent"], "memory_features": memory_fit["features_exponent"],
                     "MB_at_1000x10": memory_fit["at_1000x10"], "memory_r2": memory_fit["r2_log"],
                     "points": int(time_fit["points"]), "fastest_s": float(part["seconds"].min()),
                     "largest": f"{int(part['m'].max()):,} × {int(part['n'].max())}"})
    return grid, pd.DataFrame(fits)


def scale_note(fits: pd.DataFrame) -> str:
    """The fitted exponents of :func:`scale_statement` as sentences, each with its fit's R², and which
    fits are poor (R² below :data:`POOR_FIT_R2`)."""
    each = "; ".join(f"{r.label}: time a = {r.time_rows:.2f}, b = {r.time_features:.2f} (R² {r.time_r2:.2f}), "
                     f"memory a = {r.memory_rows:.2f}, b = {r.memory_features:.2f} (R² {r.memory_r2:.2f})"
                     for r in fits.itertuples())
    poor = [f"{r.label} ({kind}, R² {r2:.2f})" for r in fits.itertuples()
            for kind, r2 in (("time", r.time_r2), ("memory", r.memory_r2)) if r2 < POOR_FIT_R2]
    if poor:
        verdict = (f"Poor fits (R² below {POOR_FIT_R2:g}: a power law describes them badly, so predict from "
                   f"the table's nearest measured point instead): " + "; ".join(poor) + ".")
    else:
        verdict = f"Every fit has R² of at least {POOR_FIT_R2:g}."
    return f"The fitted exponents, each with its fit's R² on the log scale: {each}. {verdict}"


def exponents_style(fits: pd.DataFrame) -> object:
    """The fitted exponents of :func:`scale_statement`, readable: time ≈ t₀ (m/1000)^a (n/10)^b, each
    fit with its R²."""
    shown = fits.assign(seconds_at_1000x10=fits["seconds_at_1000x10"] * 1e3, fastest_s=fits["fastest_s"] * 1e3)
    shown = shown.rename(columns={"label": "Algorithm", "time_rows": "time: a (rows)",
                                  "time_features": "time: b (features)", "seconds_at_1000x10": "t₀ (ms)",
                                  "time_r2": "R² (log time)", "memory_rows": "memory: a", "memory_features": "memory: b",
                                  "MB_at_1000x10": "M₀ (MB)", "memory_r2": "R² (log memory)",
                                  "fastest_s": "fastest point (ms)", "largest": "largest m × n"})
    shown = shown.drop(columns=["points"])
    return (shown.style.format({"time: a (rows)": "{:.2f}", "time: b (features)": "{:.2f}", "t₀ (ms)": _three_digits,
                                "R² (log time)": "{:.2f}", "memory: a": "{:.2f}", "memory: b": "{:.2f}",
                                "M₀ (MB)": _three_digits, "R² (log memory)": "{:.2f}",
                                "fastest point (ms)": _three_digits}).hide(axis="index"))


def _three_digits(value: float) -> str:
    # three significant digits, never in exponent notation (0.000123, 12.3, 12,300)
    if not np.isfinite(value) or value == 0:
        return f"{value:g}"
    decimals = max(0, 2 - int(np.floor(np.log10(abs(value)))))
    return f"{round(value, decimals):,.{decimals}f}"


def scale_statement_figure(grid: pd.DataFrame, fits: pd.DataFrame) -> plt.Figure:
    """Log-log: seconds against rows m (at each algorithm's largest n) and against features n (at its
    largest m), one line per algorithm and depth, the fitted exponents in a legend below."""
    fig, axes = figures.figure(2, 2, height=5.6, sharey="row", gridspec_kw={"height_ratios": [5, 1.6]})
    (by_rows, by_features), below = axes[0], axes[1]
    for ax in below:            # the bottom row becomes one axes across the figure, for the legend
        ax.remove()
    legend_ax = fig.add_subplot(axes[0, 0].get_gridspec()[1, :])
    legend_ax.axis("off")
    exponent = fits.set_index("label")
    for (label, part), color in zip(grid.groupby("label", sort=False), sns.color_palette(n_colors=len(fits))):
        rows_line = part[part["n"] == part["n"].max()].sort_values("m")
        features_line = part[part["m"] == part["m"].max()].sort_values("n")
        by_rows.loglog(rows_line["m"], rows_line["seconds"], "o-", color=color,
                       label=(f"{label}: a = {exponent.loc[label, 'time_rows']:.2f}, "
                              f"b = {exponent.loc[label, 'time_features']:.2f} (R² {exponent.loc[label, 'time_r2']:.2f})"))
        by_features.loglog(features_line["n"], features_line["seconds"], "s-", color=color)
    by_rows.set(xlabel="rows m (at the largest n)", ylabel="seconds (best of the runs, pinned)",
                title="Time against rows")
    by_features.set(xlabel="features n (at the largest m)", title="Time against features")
    for ax, ticks in ((by_rows, _log_ticks(grid["m"])), (by_features, sorted(int(v) for v in grid["n"].unique()))):
        ax.set_xticks(ticks, [_short_count(v) for v in ticks])
        ax.xaxis.set_minor_locator(plt.NullLocator())
        ax.yaxis.set_minor_formatter(plt.NullFormatter())
    # one legend for both panels, below them (the lines cross the panels wherever the data put them)
    legend_ax.legend(*by_rows.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    return fig


def _log_ticks(values: pd.Series) -> list[int]:
    # 1-2-5 ticks inside the values' range, thinned to the decades when there are more than five
    low, high = float(values.min()), float(values.max())
    ticks = [v * 10**k for k in range(0, 10) for v in (1, 2, 5) if low <= v * 10**k <= high]
    return [t for t in ticks if str(t).startswith("1")] if len(ticks) > 5 else ticks


def _short_count(value: float) -> str:
    # 2000 -> "2k", 1000000 -> "1M": tick labels that fit side by side
    value = int(value)
    if value >= 10**6 and value % 10**5 == 0:
        return f"{value / 10**6:g}M"
    if value >= 1000 and value % 100 == 0:
        return f"{value / 1000:g}k"
    return str(value)
