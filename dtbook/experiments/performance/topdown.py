"""TopDown_G against scikit-learn's best-first tree ([BGLT20] Sec. 1.1), its peak memory, and the scale
rows (TopDown_G and Est_G, [BGLT20] Theorem 3, on large samples).
"""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dtcore.audit.compare import tree_from_sklearn
from dtcore.functions import random_tree
from dtcore.local import LabelOracle, SharedDraws, est
from dtcore.topdown import top_down
from ... import figures, seeds
from .common import Benchmark, THREADS, benchmark_row, for_sklearn, leaf_sets, timed


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
    ax.plot(memory["input_MB"], memory["peak_over_input"], "o-", color=figures.OKABE_ITO[0],
            label="TopDown$_G$: peak memory / input size")
    ax.axhline(1.0, color="k", ls="--", lw=1, label="peak = input size")
    ax.set(xlabel="input size (MB)", ylabel="peak memory / input size",
           ylim=(0, max(1.2, float(memory["peak_over_input"].max()) * 1.2)),
           title=f"Peak memory of TopDown$_G$, $n = {n}$, $t = {t}$")
    figures.legend(ax, "below", ncol=2)
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
