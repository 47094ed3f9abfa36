"""The performance appendix's machinery: a benchmark row, its interleaved timing, the log of rows and the
profiles, shared by every workload.

Every benchmark times a dtcore call and its peer's with :func:`dtbook.timing.interleaved_times`,
pinned to one thread and at the libraries' default threads (:data:`THREADS`), and compares the two
outputs, so that a speed-up never hides a different answer. A :class:`Benchmark` is one row of the
appendix's ratios table with the tidy times behind it; a :class:`BenchmarkLog` collects them.
Randomness follows the book's rule (:mod:`dtbook.seeds`): the page draws each workload's data
from its own keyed stream (:func:`workload_rng`), and a peer that takes a seed gets one keyed by its
benchmark (``"performance/<benchmark>/peer"``), so adding a workload never changes another's data.
"""

from __future__ import annotations

import cProfile
import io
import pathlib
import pstats
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dtcore.tree import DecisionTree
from dtcore.validate import check_int
from ... import seeds
from ...timing import interleaved_times, summarise


#: The two thread settings of every benchmark: BLAS/OpenMP pinned to one thread, and the defaults.
THREADS: dict[str, int | None] = {"pinned": 1, "default": None}


#: The looser target of every row with a peer at quick scale: on the small quick workloads fixed
#: per-call costs weigh more, so the quick target only asks dtcore not to be slower than its peer.
QUICK_TARGET = 1.0


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
            "Est_G": "predictions or labels that differ between the pinned and default runs (self-consistent)",
            "Exact optimum": "|training errors of the estimator's tree − ConTree's tree|",
            "FIND against DL8.5":
                "|training errors of FIND's tree − DL8.5's tree| + |FIND's reported − recomputed|",
            "FIND against GOSDT":
                "|training errors of FIND's tree − GOSDT's tree| + |FIND's reported − recomputed|"}


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
    "Est_G": None,
    "Exact optimum": ("dtcore.estimators.OptimalTreeClassifier", "pycontree.ConTree"),
    "FIND against DL8.5": ("dtcore.find.find", "pydl85.DL85Classifier"),
    "FIND against GOSDT": ("dtcore.find.find", "gosdt.GOSDTClassifier")}


Times = dict[str, pd.DataFrame]


@dataclass(frozen=True)
class Benchmark:
    """One row of the ratios table (``row``), the tidy times behind it (``times``) and, where a speed
    target can be missed, the dtcore call to profile (``profile``)."""

    row: dict[str, Any]
    times: pd.DataFrame
    profile: Callable[[], object] | None = None


def timed(candidates: Mapping[str, Callable[[], object]], *, repetitions: int, calls: int = 1,
          warm_up: bool = False, settings: Sequence[str] = tuple(THREADS)) -> tuple[Times, dict[str, dict]]:
    """Every candidate timed interleaved in each setting of :data:`THREADS` (or only in ``settings``,
    a non-empty subset of its keys that includes ``"pinned"``, the setting every target judges).

    ``calls`` > 1 makes each timed call run the candidate ``calls`` times in a row and reports the
    seconds per call (the timed total divided by ``calls``): for calls of a few milliseconds, whose
    single times the machine's load and the timer's own cost would blur. ``warm_up`` runs every
    candidate once, untimed, before the first setting (first-call costs: imports, compiled kernels
    loaded from their cache, thread pools). Returns ``{setting: tidy times}`` and ``{setting:
    {candidate: its last result}}``.
    """
    calls = check_int("calls", calls, 1)
    if isinstance(settings, str) or "pinned" not in settings or not set(settings) <= set(THREADS):
        raise ValueError(f"settings must be a subset of {list(THREADS)} that includes 'pinned', got {settings!r}")
    if not isinstance(warm_up, bool):
        raise ValueError(f"warm_up must be True or False, got {warm_up!r}")

    def repeated(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            for _ in range(calls - 1):
                fn()
            return fn()
        return run

    looped = {name: (fn if calls == 1 else repeated(fn)) for name, fn in candidates.items()}
    if warm_up:
        for fn in candidates.values():
            fn()
    times, results = {}, {}
    for setting, threads in THREADS.items():
        if setting not in settings:
            continue
        t, results[setting] = interleaved_times(looped, repetitions, threads=threads)
        times[setting] = t if calls == 1 else t.assign(seconds=t["seconds"] / calls)
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
        if f"dtcore_s_{setting}" not in row:
            parts.append(f"{setting}: not timed;")
        elif f"ratio_{setting}" in row:
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
            for col in (f"dtcore_s_{setting}", f"dtcore_spread_{setting}", f"peer_s_{setting}", f"ratio_{setting}",
                        f"ratio_min_{setting}", f"ratio_max_{setting}", f"floor_s_{setting}",
                        f"floor_distance_{setting}"):
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


def workload_rng(seed: int, workload: str) -> np.random.Generator:
    """The generator of one workload's data under the page's ``seed``: the stream ``"performance/<workload>"``."""
    return seeds.experiment_rng(seed, f"performance/{workload}")
