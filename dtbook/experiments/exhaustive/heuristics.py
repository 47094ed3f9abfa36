"""[BLT20] Theorem 3 and the greedy heuristics against the optimum: the size BuildTopDownDT, TopDown_G and
ID3 reach on every function of four variables, against the minimum size, and local searches past n = 4.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dtcore import bounds, exhaustive as ex
from dtcore.audit import worst_case as wc
from dtcore.buildtopdown import build_top_down_dt
from dtcore.cube import all_points
from dtcore.id3 import id3
from dtcore.topdown import top_down
from ... import figures
from ...report import VerificationTable


def heuristic_sizes(*, eps_grid: Sequence[float]) -> pd.DataFrame:
    """One row per function on four variables: optimal size and depth, and each heuristic's size."""
    tables = ex.all_tables(4)
    opt = ex.optimal_trees(tables)
    out = {"function": np.arange(tables.shape[0]), "s": opt.root_size.astype(int), "D": opt.root_depth.astype(int)}
    stats = ex.subcube_statistics(tables)
    runs = ex.best_first_runs(*ex.build_top_down_scores(stats), 4, totals={"error": stats.error})
    for eps in eps_grid:
        out[f"BuildTopDownDT eps={eps:g}"] = runs.size_at("error", eps)
    for name in wc.HEURISTICS[1:]:
        out[name] = wc.heuristic_sizes(tables, name)
    return pd.DataFrame(out)


def heuristic_summary(sizes: pd.DataFrame) -> pd.DataFrame:
    """Per heuristic: worst size / optimal size, its witness, functions learned at optimal size."""
    rows = []
    learned = sizes[sizes["s"] > 1]
    for col in sizes.columns[3:]:
        ratio = learned[col] / learned["s"]
        k = int(ratio.to_numpy().argmax())
        witness = learned.iloc[k]
        eps = float(col.split("=")[1]) if "eps=" in col else None
        rows.append({"heuristic": col, "worst ratio": float(ratio.iloc[k]), "witness": format(int(witness["function"]), "04x"),
                     "size": int(witness[col]), "optimal size": int(witness["s"]),
                     "optimal count": int((sizes[col] == sizes["s"]).sum()), "functions": len(sizes),
                     "mean ratio": float(ratio.mean()),
                     "Theorem 3 bound": (bounds.blt20_theorem3_size_bound(max(int(witness["s"]), 2), eps)
                                         if eps is not None else np.nan)})
    return pd.DataFrame(rows)


def learner_agreement(sizes: pd.DataFrame, functions: Sequence[int], eps_grid: Sequence[float]) -> dict[str, int]:
    """Per algorithm (BuildTopDownDT, TopDown_G, ID3): largest |lock-step size - single-function learner's size|
    over ``functions`` and every setting of it."""
    tables = ex.all_tables(4)
    X = all_points(4)
    worst = {"BuildTopDownDT": 0, "TopDown_G": 0, "ID3": 0}
    for f in functions:  # the single-function learners, one function at a time
        row = sizes.iloc[int(f)]
        t = tables[int(f)]
        found = {f"BuildTopDownDT eps={e:g}": build_top_down_dt(t, eps=e).tree.size for e in eps_grid}
        for imp in ("gini", "entropy"):
            found[f"TopDown_G {imp}"] = top_down(X, t, size=16, impurity=imp).tree.size
            found[f"ID3 {imp}"] = id3(X, t, impurity=imp).tree.size
        for k, v in found.items():
            algorithm = k.split(" ")[0]
            worst[algorithm] = max(worst[algorithm], abs(int(row[k]) - v))
    return worst


#: The ledger entry of each heuristic's algorithm ([KEY] Kind N, dtbook.ledger).
ALGORITHM_ENTRY = {"BuildTopDownDT": "[BLT20] BuildTopDownDT", "TopDown_G": "[BGLT20] TopDown",
                   "ID3": "[BDM20] Algorithm 1"}


def local_searches(*, ns: Sequence[int], heuristics: Sequence[str], budget: int, restarts: int,
                   extremal: dict[str, int], rng: np.random.Generator) -> pd.DataFrame:
    """Hill climbing past n = 4 from the n = 4 extremal functions lifted and random restarts."""
    tables = ex.all_tables(4)
    rows = []
    for n in ns:
        for h in heuristics:
            start = time.process_time()
            lifted = np.concatenate([wc.lift(tables[[extremal[h]]], n, onto) for onto in ("last", "first")])
            res = wc.local_search(n, h, lifted, rng=rng, budget=budget, restarts=restarts)
            rows.append({"n": n, "heuristic": h, "worst ratio found": res.ratio, "size": res.size,
                         "optimal size": res.optimum, "evaluations": res.evaluations,
                         "table": "".join(map(str, res.table[::-1])), "cpu seconds": time.process_time() - start})
    return pd.DataFrame(rows)


def heuristic_label(column: str, *, maths: bool = False) -> str:
    """How a reader reads a heuristic's column name: "BuildTopDownDT eps=0.05" -> BuildTopDownDT, ε = 0.05;
    "TopDown_G gini" -> TopDown𝒢, Gini; "ID3 entropy" -> ID3, entropy (``maths``: in ``$...$`` for a figure)."""
    if "eps=" in column:
        eps = column.split("=")[1]
        return f"BuildTopDownDT, $\\varepsilon = {eps}$" if maths else f"BuildTopDownDT, ε = {eps}"
    method, impurity = column.rsplit(" ", 1)
    impurity = {"gini": "Gini", "entropy": "entropy"}.get(impurity, impurity)
    return f"{method.replace('TopDown_G', 'TopDown$_G$' if maths else 'TopDown𝒢')}, {impurity}"


def ratio_figure(sizes: pd.DataFrame) -> plt.Figure:
    """The distribution of heuristic size / minimum size over the functions of four variables (log-log):
    BuildTopDownDT at each ε in the top panel, TopDown_G and ID3 in the bottom one, each method in its
    book colour (line style: ε, or the impurity)."""
    fig, axes = figures.figure(1, 2, height=6.4, sharex=True)
    learned = sizes[sizes["s"] > 1]
    styles = ("-", "--", ":", "-.")
    btd = [c for c in sizes.columns[3:] if "eps=" in c]
    rest = [c for c in sizes.columns[3:] if "eps=" not in c]
    for ax, columns in zip(axes, (btd, rest)):
        for k, col in enumerate(columns):
            ratio = np.sort((learned[col] / learned["s"]).to_numpy())
            style = styles[k % len(styles)] if col in btd else ("-" if col.endswith("gini") else "--")
            # ID3 and TopDown_G on the whole cube nearly coincide: ID3 drawn wide and pale underneath
            wide = col.startswith("ID3")
            ax.plot(ratio, 1 - np.arange(ratio.size) / ratio.size, label=heuristic_label(col, maths=True),
                    lw=4.0 if wide else 1.6, alpha=0.55 if wide else 1.0, ls=style, color=figures.method_colour(col),
                    zorder=2 if wide else 3)
        ax.set_yscale("log")
        ax.set_ylabel("fraction of functions ≥ $x$")
        figures.legend(ax, "inside")
    axes[0].set_title("BuildTopDownDT (exact influences) at each $\\varepsilon$")
    axes[1].set_title("TopDown$_G$ and ID3, grown until every leaf is pure")
    axes[1].set_xscale("log", base=2)
    axes[1].set_xlabel("heuristic size / minimum size $s(f)$")
    return fig


def heuristics_glue(sizes: pd.DataFrame, summary: pd.DataFrame) -> dict[str, object]:
    """The page's numbers about the heuristics: the worst ratios, their witnesses and the optimal counts."""
    worst = summary.set_index("heuristic")
    exact_col = next(c for c in sizes.columns if c.startswith("BuildTopDownDT") and float(c.split("=")[1]) < 1 / 16)
    return {"ch7_btd_exact_worst": float(worst.loc[exact_col, "worst ratio"]),
            "ch7_btd_exact_witness": worst.loc[exact_col, "witness"],
            "ch7_btd_exact_optimal": f"{int(worst.loc[exact_col, 'optimal count']):,}",
            "ch7_td_worst": float(worst.loc["TopDown_G gini", "worst ratio"]),
            "ch7_td_witness": worst.loc["TopDown_G gini", "witness"],
            "ch7_td_optimal": f"{int(worst.loc['TopDown_G gini', 'optimal count']):,}",
            "ch7_id3_optimal": f"{int(worst.loc['ID3 entropy', 'optimal count']):,}"}


def check_heuristics(table: VerificationTable, sizes: pd.DataFrame, summary: pd.DataFrame, *,
                     eps_grid: Sequence[float], rng: np.random.Generator) -> None:
    """The lock-step sizes against the single-function learners on every witness and 24 random functions
    (identity), then each heuristic's worst size / s (an observation: no theorem bounds it)."""
    checked = sorted({int(w, 16) for w in summary["witness"]} | set(rng.choice(65536, 24, replace=False).tolist()))
    gaps = learner_agreement(sizes, checked, eps_grid)
    computed = {"BuildTopDownDT": "dtcore.buildtopdown.build_top_down_dt", "TopDown_G": "dtcore.topdown.top_down",
                "ID3": "dtcore.id3.id3"}
    for algorithm, gap in gaps.items():
        table.identity(f"{algorithm.replace('TopDown_G', 'TopDown𝒢')}, lock-step sizes",
                       f"max |lock-step size − learner's size| on {len(checked)} functions", gap, 0.0,
                       computed_by=("dtcore.exhaustive.best_first_runs, dtcore.audit.worst_case.heuristic_sizes",
                                    computed[algorithm]))
    for _, r in summary.iterrows():
        label = heuristic_label(r["heuristic"])
        table.observation("[BLT20] Theorem 3, at four variables" if r["heuristic"].startswith("Build")
                          else f"{label.split(',')[0]} against the optimum",
                          f"{label}: worst size / s over every function (witness {r['witness']})",
                          r["worst ratio"], why="no theorem bounds this ratio below 16, the largest size on four variables")


#: The guard of the local search at n = 4, where every function is known: functions evaluated and random
#: restarts per heuristic (the search starts from random tables only, never from the known witness).
N4_BUDGET, N4_RESTARTS = 1200, 4


def search_at_n4(summary: pd.DataFrame, *, heuristics: Sequence[str], rng: np.random.Generator,
                 budget: int = N4_BUDGET, restarts: int = N4_RESTARTS) -> pd.DataFrame:
    """The local search of :func:`local_searches` at n = 4 from random tables, against the exhaustive worst
    ratio of each heuristic over all 65,536 functions (``summary``, from :func:`heuristic_summary`)."""
    worst = summary.set_index("heuristic")["worst ratio"]
    rows = []
    for h in heuristics:
        res = wc.local_search(4, h, np.empty((0, 16), dtype=np.uint8), rng=rng, budget=budget, restarts=restarts)
        rows.append({"heuristic": h, "found ratio": res.ratio, "exhaustive worst ratio": float(worst[h]),
                     "evaluations": res.evaluations, "table": "".join(map(str, res.table[::-1]))})
    return pd.DataFrame(rows)


def lifted_reference(extremal: dict[str, int], ns: Sequence[int]) -> pd.DataFrame:
    """The reference each search past n = 4 must beat: the n = 4 extremal function lifted onto the last
    variables (the harder lift), its ratio computed directly (no search)."""
    tables = ex.all_tables(4)
    rows = []
    for n in ns:
        for h, f in extremal.items():
            lifted = wc.lift(tables[[f]], n, "last")
            size = wc.heuristic_sizes(lifted, h)
            opt = ex.optimal_trees(lifted).root_size
            rows.append({"n": n, "heuristic": h, "reference ratio": float(size[0] / opt[0])})
    return pd.DataFrame(rows)


def check_search(table: VerificationTable, n4: pd.DataFrame, search: pd.DataFrame | None = None,
                 reference: pd.DataFrame | None = None) -> None:
    """The local search where the truth is known (identity at n = 4: it reaches the exhaustive worst), and
    at the page's sizes a counted row per search: the function found is at least as hard as the lifted
    n = 4 extremal (:func:`lifted_reference`)."""
    for _, r in n4.iterrows():
        name = heuristic_label(r["heuristic"]).split(",")[0]
        table.identity(f"{name}, local search (n = 4)",
                       f"|worst ratio found by the search − exhaustive worst|, {heuristic_label(r['heuristic'])}, "
                       f"{int(r['evaluations'])} functions evaluated",
                       abs(float(r["found ratio"]) - float(r["exhaustive worst ratio"])), 0.0,
                       computed_by=("dtcore.audit.worst_case.local_search",
                                    "dtbook.experiments.exhaustive.heuristics.heuristic_summary"))
    if search is None or reference is None or search.empty:
        return
    ref = reference.set_index(["n", "heuristic"])["reference ratio"]
    for _, r in search.iterrows():
        bound = float(ref[(r["n"], r["heuristic"])])
        if float(r["worst ratio found"]) < bound:  # the search's guard: a weaker search stops the page
            raise ValueError(f"search_budget is too small: the search at n = {r['n']} for {r['heuristic']} found "
                             f"{r['worst ratio found']:.4g}, less than the lifted n = 4 extremal's {bound:.4g}")
        name = heuristic_label(r["heuristic"]).split(",")[0]
        table.observation(f"{name}, local search (n = {r['n']})",
                          f"{heuristic_label(r['heuristic'])}: worst ratio found (the lifted n = 4 extremal's: "
                          f"{bound:.4g})", float(r["worst ratio found"]), bound, relation=">=",
                          why="no statement of the papers bounds a heuristic's size against the optimum; the search "
                              "must find at least the lifted extremal, or the page stops",
                          worst_case=f"table {r['table']}")


def search_glue(n4: pd.DataFrame) -> dict[str, object]:
    """How much of the class the n = 4 search saw."""
    return {"ch7_search_n4_evaluations": int(n4["evaluations"].max()),
            "ch7_search_n4_share": f"{n4['evaluations'].max() / 65536:.1%}"}
