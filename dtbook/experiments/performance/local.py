"""LocalLearner against the full TopDownSizeEstimate tree ([BGLT20] Theorem 2): time and labels per query.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dtcore.functions import random_tree
from dtcore.local import LabelOracle, SharedDraws, local_learner, top_down_size_estimate
from dtcore.topdown import depth_cap
from ... import figures
from ...report import VerificationTable
from .common import Benchmark, benchmark_row, timed


#: The LocalLearner workload: features, size t, minibatch b, strands and queries.
LOCAL = {"n": 24, "t": 32, "b": 200, "strands": 400, "queries": 20}


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
    ax.loglog(local_labels["size"], local_labels["labels_full_tree"], "s-", ms=9, mfc="none", lw=2.5,
              color=figures.OKABE_ITO[0], label="TopDownSizeEstimate (full tree)", zorder=2)
    ax.loglog(local_labels["size"], local_labels["labels_local"], "o-", ms=4, color=figures.OKABE_ITO[1],
              label=f"LocalLearner, {LOCAL['queries']} queries", zorder=3)
    ax.set(xlabel="size of the unlabelled set |S°|", ylabel="distinct points labelled",
           title="Labels queried against |S°|")
    sizes = local_labels["size"].tolist()
    ax.set_xticks(sizes, [f"{v:,}" for v in sizes])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    counts = local_labels[["labels_training", "labels_full_tree", "labels_local"]].to_numpy()
    ticks = [v * 10**k for k in range(2, 9) for v in (1, 2, 5) if counts.min() / 1.5 <= v * 10**k <= counts.max() * 1.5]
    ax.set_yticks(ticks, [f"{v:,}" for v in ticks])
    ax.yaxis.set_minor_locator(plt.NullLocator())
    figures.legend(ax, "below", ncol=1)
    return fig


def local_label_reach(size: int) -> int:
    """The most distinct points of S° the :data:`LOCAL` workload can label: one minibatch of b points per
    node of depth at most D (:func:`dtcore.topdown.depth_cap` of t), and never more than |S°|."""
    return min(int(size), LOCAL["b"] * 2 ** (depth_cap(LOCAL["t"]) + 1))


def check_local_labels(table: VerificationTable, local_labels: pd.DataFrame) -> None:
    """LocalLearner ([BGLT20] Theorem 2, App. D) reads only the minibatches of leaves its strands and
    queries reach, which the full tree also reads: its distinct labels are at most the full tree's (a
    theorem row while that is below the reach, :func:`local_label_reach`; else an observation).

    With :data:`LOCAL`'s 400 strands every leaf the full tree grows is reached by a strand, so the two
    counts are equal: the rows are flagged tight by construction (never the closest call). Their power:
    a learner labelling one minibatch at every node of depth at most D (the reach) exceeds the full tree's
    labels wherever the row is counted."""
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
                          note="reach: one minibatch of b points per node of depth at most D, and at most |S°|",
                          fails_under=("one minibatch labelled at every node of depth at most D, at most |S°| "
                                       "(a learner that labels the whole depth-D tree's batches: the reach)", reach))
        else:
            table.observation("[BGLT20] Theorem 2, LocalLearner", quantity, row["labels_local"],
                              row["labels_full_tree"],
                              why="the full tree labels every point LocalLearner could label, so the bound is the "
                                  "whole reach")
