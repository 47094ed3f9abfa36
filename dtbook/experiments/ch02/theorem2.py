"""[BGLT20] Theorem 2 (formal Theorem 5) and Lemma D.1: LocalLearner answers T(x*) of TopDownSizeEstimate's
tree with few label requests, its savings over training the whole tree, and the figure and text of
Theorems 2 and 5 together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from dtcore import bounds
from dtcore.cube import ProductDistribution
from dtcore.local import LabelOracle, SharedDraws, local_learner, top_down_size_estimate
from dtcore.topdown import minibatch_top_down
from ... import figures
from ...report import VerificationTable, worst
from .common import growth_exponent, paper_depth_cap
from .theorem5 import STRANDS


@dataclass
class LocalQueries:
    """LocalLearner's answers: one row per query (``frame``), the queries whose answer differs from the
    global tree's (``mismatches``) and the runs where TopDownSizeEstimate(t) = MiniBatchTopDown(t')."""

    frame: pd.DataFrame
    mismatches: int
    same_tree: int


def local_learner_queries(X: np.ndarray, y: np.ndarray, *, sizes: Sequence[int], b: int, n_queries: int,
                          rng: np.random.Generator) -> LocalQueries:
    """[BGLT20] Theorem 2 / Theorem 5 and Lemma D.1: for every t, LocalLearner(t, b, S°, x*) on
    ``n_queries`` uniform queries against the tree T of TopDownSizeEstimate (m = b strands, as in the
    paper), each query with a fresh label oracle (its own labels), and T against MiniBatchTopDown(t')
    with the depth cap D(t)."""
    n_train, n = X.shape
    rows, mismatches, same_tree = [], 0, 0
    for t in sizes:
        draws = SharedDraws.draw(n_train, n, b, rng=rng)  # m = b strands, as in the paper
        full = top_down_size_estimate(X, LabelOracle.from_labels(y), size=t, batch_size=b, draws=draws)
        mb = minibatch_top_down(X, y, size=full.tree.size, batch_size=b, order=draws.order, depth=paper_depth_cap(t))
        same_tree += int(np.array_equal(mb.tree.leaf_restrictions(), full.tree.leaf_restrictions())
                         and np.array_equal(mb.tree.leaf_values(), full.tree.leaf_values()))
        queries = ProductDistribution.uniform(n).sample(n_queries, rng=rng)
        expected = full.tree.predict(queries)
        for k, q in enumerate(queries):
            oracle = LabelOracle.from_labels(y)  # fresh oracle: labels used by this query alone
            res = local_learner(X, oracle, size=t, batch_size=b, x_star=q, draws=draws)
            mismatches += int(res.labels[0] != expected[k])
            rows.append({"t": t, "query": k, "labels": res.labelled, "requests": res.requests,
                         "t_prime": full.tree.size, "bound": bounds.bglt20_lemma_d1_labels(b, t, b, 1),
                         "tree_requests": full.requests})
    return LocalQueries(pd.DataFrame(rows), mismatches, same_tree)


def check_local_learner(table: VerificationTable, queries: LocalQueries, *, sizes: Sequence[int], b: int) -> None:
    """Rows of [BGLT20] Theorem 2 / Appendix D (LocalLearner(x*) = T(x*); T = MiniBatchTopDown(t')) and
    Lemma D.1 (label requests per query at most b((b+1)(D+1)+1))."""
    t2 = queries.frame
    table.identity("Theorem 2 / Appendix D", f"queries where LocalLearner(x*) != T(x*) ({len(t2)} queries)", queries.mismatches, 0,
                   box="thm-bglt-2", computed_by=(local_learner, top_down_size_estimate))
    table.identity("Theorem 2 / Appendix D", f"runs where TopDownSizeEstimate(t) != MiniBatchTopDown(t') ({len(sizes)} runs)",
                   len(sizes) - queries.same_tree, 0, box="thm-bglt-2",
                   computed_by=(top_down_size_estimate, minibatch_top_down))
    for t, grp in t2.groupby("t"):
        # Lemma D.1 counts minibatches read, b labels each: the label *requests*. A run scores each tree
        # node of depth at most D once (at most 2^(D+1) - 1 of them) and reads one more minibatch for the
        # query's leaf, so no query can request more than b 2^(D+1) labels: the reach of the count
        check_d1_row(table, f"max label requests per query, t = {t}, b = {b} (bound b((b+1)(D+1)+1))",
                     requests=worst(grp["requests"]), bound=int(grp["bound"].iloc[0]),
                     reach=local_learner_request_reach(b, t, n_queries=1), tree_requests=int(grp["tree_requests"].max()),
                     t_prime=int(grp["t_prime"].max()), worst_case=f"the most of {len(grp)} uniform queries on tribes",
                     biting=f"it bites from t = {first_biting_size(b, n_queries=1)} on (b = {b})")


#: The worse output of the label-count rows (issue 35: a row's power): the global learner, which grows the whole
#: tree T with the same draws and so reads every minibatch LocalLearner reads and more.
WHOLE_TREE = "the whole tree T grown by the global learner with the same draws"


def check_d1_row(table: VerificationTable, quantity: str, *, requests: int, bound: int, reach: int, tree_requests: int,
                 t_prime: int, worst_case: str, biting: str, result: str = "Lemma D.1", box: str = "lem-bglt-d1",
                 measured_by: object = (local_learner, "dtcore.local.LabelOracle (requests)")) -> None:
    """One row of a label count against the count of [BGLT20] Lemma D.1 (or Theorem 6): a theorem row whose worse
    output is :data:`WHOLE_TREE` (its requests) where that output exceeds the bound; an observation, with the number
    that shows why, where the bound is at or above the reach b 2^(D+1), or above what growing all of T requests
    (LocalLearner reads a part of that, so no run with this tree can fail the row)."""
    if bound >= reach:
        table.observation(result, quantity, requests, bound, box=box,
                          why=f"a run can request at most {reach} labels here (one minibatch per node of depth ≤ D and "
                              f"per query leaf), below the bound {bound}, so the bound cannot fail; {biting}")
    elif tree_requests <= bound:
        table.observation(result, quantity, requests, bound, box=box,
                          why=f"growing the whole tree T (t' = {t_prime}) with the same draws requests {tree_requests} "
                              f"labels, within the bound {bound}; the local runs read a part of that, so no run with "
                              f"this tree can fail the row")
    else:
        table.theorem(result, quantity, requests, bound, reach=(0, reach), box=box, measured_by=measured_by,
                      bound_by=bounds.bglt20_lemma_d1_labels, worst_case=worst_case,
                      note=f"a run can request at most b·2ᴰ⁺¹ = {reach} labels",
                      # the whole tree may read more minibatches than one run can: it counts up to the reach
                      fails_under=(f"{WHOLE_TREE} (t' = {t_prime}), as far as one run can read",
                                   min(tree_requests, reach)))


def local_learner_request_reach(b: int, t: int, *, n_queries: int) -> int:
    """The most label requests LocalLearner (``n_queries`` = 1) or Est can make at size t: one minibatch
    of b points per tree node of depth at most D (2^(D+1) - 1 nodes), plus one per distinct query leaf
    (at most min(n_queries, 2^(D+1)) leaves). D is eq. (5) of [BGLT20], from :mod:`dtcore.bounds`."""
    if b < 1 or n_queries < 1:
        raise ValueError(f"b and n_queries must be at least 1, got b = {b}, n_queries = {n_queries}")
    nodes = 2 ** (paper_depth_cap(t) + 1)
    return int(b * (nodes - 1 + min(n_queries, nodes)))


def first_biting_size(b: int, *, n_queries: int, t_max: int = 2**20) -> int:
    """The smallest power-of-two t at which Lemma D.1's / Theorem 6's count b((b + k)(D + 1) + k), with
    m = b strands and k = ``n_queries``, falls below the most requests a run can make
    (:func:`local_learner_request_reach`): below it the bound cannot fail. ``ValueError`` if none up to
    ``t_max``."""
    t = 2
    while t <= t_max:
        if bounds.bglt20_lemma_d1_labels(b, t, b, n_queries) < local_learner_request_reach(b, t, n_queries=n_queries):
            return t
        t *= 2
    raise ValueError(f"the count never falls below the reach up to t_max = {t_max} (b = {b}, n_queries = {n_queries})")


def theorem2_figure(t2: pd.DataFrame, tp: pd.DataFrame, *, n_train: int, b: int, eta: float) -> plt.Figure:
    """[BGLT20] Theorems 2 and 5: labels per LocalLearner query against Lemma D.1's bound and |S°|, and
    the size t' of TopDownSizeEstimate's tree over t against 1 +- eta."""
    fig, axes = figures.figure(2, height=4.6)
    summary = t2.groupby("t").agg(labels_max=("labels", "max"), requests_max=("requests", "max"), bound=("bound", "first"))
    axes[0].plot(summary.index, summary["requests_max"], "^-", label="label requests (max)")
    axes[0].plot(summary.index, summary["labels_max"], "s--", label="distinct points labelled (max)")
    axes[0].plot(summary.index, summary["bound"], "k-", label=r"bound $b((b+1)(D+1)+1)$")
    axes[0].axhline(n_train, color="0.5", ls=":", label=r"$|S^\circ|$ (labels to train)")
    axes[0].set_xscale("log", base=2)
    axes[0].set_yscale("log")
    axes[0].set_xlabel("size parameter t")
    axes[0].set_ylabel("labels per query")
    axes[0].set_title(f"LocalLearner, b = m = {b}")
    sns.stripplot(data=tp, x="t", y="ratio", hue="strands", dodge=True, ax=axes[1], size=3, legend=True)
    axes[1].axhline(1 + eta, color="k", ls="--", lw=1)
    axes[1].axhline(1 - eta, color="k", ls="--", lw=1, label=r"$1 \pm \eta$")
    axes[1].set_xlabel("size parameter t")
    axes[1].set_ylabel("t' / t")
    axes[1].set_title("TopDownSizeEstimate's size")
    for ax in axes:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
    return fig


def theorem2_glue(t2: pd.DataFrame, tp: pd.DataFrame, pure: pd.DataFrame, *, sizes: Sequence[int], eta: float,
                  delta: float) -> dict[str, object]:
    """The numbers the text of [BGLT20] Theorems 2 and 5 quotes, by glue name, with the strand count of
    the earlier 4^D form (R = 2^D) at the largest t for the closing note."""
    inside = tp.assign(inside=lambda df: (df["ratio"] >= 1 - eta) & (df["ratio"] <= 1 + eta))
    split_runs, stop_runs = pure[pure["rule"] == "split"], pure[pure["rule"] == "stop"]
    paper, depth_form = list(STRANDS)[:2]
    t_max = sizes[-1]
    return {"ch2_pure_stop_flagged": int((~stop_runs["reached_t"]).sum()), "ch2_pure_stop_runs": len(stop_runs),
            "ch2_pure_split_flagged": int((~split_runs["reached_t"]).sum()),
            "ch2_pure_stop_tprime_max": int(stop_runs["t_prime"][stop_runs["t"] == t_max].max()),
            "ch2_pure_stop_e_max": float(stop_runs["e"][stop_runs["t"] == t_max].max()), "ch2_t_max": t_max,
            "ch2_t2_queries": len(t2), "ch2_t2_labels_max": int(t2["labels"].max()),
            "ch2_t2_requests_max": int(t2["requests"].max()),
            "ch2_t2_distinct_share": float((t2["labels"] / t2["requests"]).mean()),
            "ch2_t2_bound_max": int(t2["bound"].max()),
            "ch2_t2_tree_requests_tmax": int(t2.loc[t2["t"] == t2["t"].max(), "tree_requests"].max()),
            "ch2_t2_bound_tmax": int(t2.loc[t2["t"] == t2["t"].max(), "bound"].iloc[0]),
            "ch2_t2_t_local_max": int(t2["t"].max()),
            "ch2_t2_inside_small": float(inside[inside["strands"] == "m = 16"]["inside"].mean()),
            "ch2_t2_inside_theory": float(inside[inside["strands"] == paper]["inside"].mean()),
            "ch2_t2_inside_depth": float(inside[inside["strands"] == depth_form]["inside"].mean()),
            "ch2_m_paper_max": int(tp[tp["strands"] == paper]["m"].max()),
            "ch2_m_depth_max": int(tp[tp["strands"] == depth_form]["m"].max()),
            "ch2_m_old_form": int(math.ceil(4.0 ** paper_depth_cap(t_max) * math.log(2 * t_max * (1 + eta) / delta)
                                            / (2 * (eta * t_max) ** 2)))}


def label_savings(X: np.ndarray, y: np.ndarray, *, sizes: Sequence[int], b: int, n_queries: int,
                  rng: np.random.Generator) -> pd.DataFrame:
    """[BGLT20] Theorem 2 against training: per t, the labels one LocalLearner query uses (the most over
    ``n_queries`` uniform queries, each with a fresh oracle) beside the labels TopDownSizeEstimate needs to
    grow the whole tree with the same draws (every node of depth at most D scored on its minibatch), with
    Lemma D.1's count and the reach b 2^(D+1) of a query's requests."""
    n_train, n = X.shape
    rows = []
    for t in sizes:
        draws = SharedDraws.draw(n_train, n, b, rng=rng)
        whole = LabelOracle.from_labels(y)
        full = top_down_size_estimate(X, whole, size=t, batch_size=b, draws=draws)
        labels, requests = [], []
        for q in ProductDistribution.uniform(n).sample(n_queries, rng=rng):
            oracle = LabelOracle.from_labels(y)
            res = local_learner(X, oracle, size=t, batch_size=b, x_star=q, draws=draws)
            labels.append(res.labelled)
            requests.append(res.requests)
        rows.append({"t": t, "t_prime": full.tree.size, "tree_labels": full.labelled, "tree_requests": full.requests,
                     "query_labels": max(labels), "query_requests": max(requests),
                     "bound": bounds.bglt20_lemma_d1_labels(b, t, b, 1),
                     "reach": local_learner_request_reach(b, t, n_queries=1)})
    out = pd.DataFrame(rows)
    return out.assign(savings=out["tree_labels"] / out["query_labels"])


def check_label_savings(table: VerificationTable, sav: pd.DataFrame, *, b: int, n_queries: int) -> None:
    """Lemma D.1 rows at the sizes of the savings workload where the count is below the reach b 2^(D+1)."""
    for r in sav.itertuples():
        quantity = f"max label requests per query, t = {r.t}, b = {b} (bound b((b+1)(D+1)+1)), savings workload"
        if r.bound < r.reach:
            check_d1_row(table, quantity, requests=int(r.query_requests), bound=int(r.bound), reach=int(r.reach),
                         tree_requests=int(r.tree_requests), t_prime=int(r.t_prime),
                         worst_case=f"the most of {n_queries} uniform queries on tribes", biting="")


def savings_table(sav: pd.DataFrame) -> pd.DataFrame:
    """The savings workload for the page: readable headers, integers."""
    return pd.DataFrame({"t": sav["t"], "leaves t′": sav["t_prime"], "labels, whole tree": sav["tree_labels"],
                         "labels, one query": sav["query_labels"], "saving (×)": sav["savings"].round(1),
                         "requests, one query": sav["query_requests"], "the paper's Lemma D.1 count": sav["bound"],
                         "reach b·2ᴰ⁺¹": sav["reach"]})


def label_growth_glue(sav: pd.DataFrame, local_frame: pd.DataFrame, t3: pd.DataFrame, *, b: int) -> dict[str, object]:
    """Growth rates of the label counts: the exponent k of a power law x^k fitted to
    one query's labels and to the whole tree's against t, to Lemma D.1's count and to the reach against t,
    and to Est's distinct labels against |S°|; the savings at the largest t."""
    per_t = local_frame.groupby("t")["requests"].max()
    last = sav.iloc[-1]
    return {"ch2_sav_b": b, "ch2_sav_t_max": int(last["t"]), "ch2_sav_t_min": int(sav["t"].iloc[0]),
            "ch2_sav_tree_last": int(last["tree_labels"]), "ch2_sav_query_last": int(last["query_labels"]),
            "ch2_sav_ratio_last": float(last["savings"]), "ch2_sav_ratio_first": float(sav["savings"].iloc[0]),
            "ch2_k_query": growth_exponent(sav["t"], sav["query_labels"]),
            "ch2_k_query_requests": growth_exponent(sav["t"], sav["query_requests"]),
            "ch2_k_tree": growth_exponent(sav["t"], sav["tree_labels"]),
            "ch2_k_bound": growth_exponent(sav["t"], sav["bound"]),
            "ch2_k_reach": growth_exponent(sav["t"], sav["reach"]),
            "ch2_k_local_requests": growth_exponent(per_t.index, per_t.to_numpy()),
            "ch2_k_compare": ("faster than" if growth_exponent(sav["t"], sav["query_requests"])
                              > growth_exponent(sav["t"], sav["bound"]) else "no faster than"),
            "ch2_k_est_N": growth_exponent(t3["N"], t3["labels"])}
