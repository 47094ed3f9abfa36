"""Each chapter's papermill parameters, declared once (see :mod:`dtbook.chapter`).

``python -m dtbook.specs`` prints the README's parameter tables (``--update-readme`` writes
them into README.md); ``python -m dtbook.specs --update-notebooks`` rewrites every notebook's
``parameters`` cell from its specification (re-run it after adding a parameter).
``tests/test_chapter.py`` checks that the README and the notebooks show exactly these.
"""

from __future__ import annotations

import json
import pathlib
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from .chapter import REPO_ROOT, Param, ParameterSpec


def _ch3_constraints(p: Mapping[str, Any]) -> None:
    if p["size"] - p["n_stochastic"] > 2 ** p["target_depth"]:
        raise ValueError(f"size - n_stochastic must be at most 2^target_depth = {2 ** p['target_depth']}, "
                         f"got {p['size'] - p['n_stochastic']}")


CH1_TOP_DOWN = ParameterSpec("01_top_down_guarantees", "Chapter 1. Top-down induction: guarantees and limitations", (
    Param("n", "int", 12, 16, "cube dimension of the exact checks (Lemma 5.1 draws trees of up to 64 leaves)", low=6, high=20),
    Param("eps", "real", 0.05, help="error of the traced runs", low=0.0, high=0.5),
    Param("eps_grid", "real_list", [0.2, 0.1, 0.05, 0.02], [0.25, 0.2, 0.15, 0.1, 0.05, 0.02, 0.01],
          "error levels of the Theorem 3 sweep", low=0.0, high=0.5),
    Param("sizes", "int_list", [4, 8, 16, 32], [4, 8, 16, 32, 64, 128], "target tree sizes s", low=2,
          high=lambda p: 2 ** min(p["n"], 10), range_text="each in [2, 2^min(n, 10)]"),
    Param("n_functions", "int", 150, 1000, "random functions and trees per exact check", low=1, high=10**6),
    Param("n_max_lower_bound", "int", 16, 20, "largest cube dimension of the lower-bound family", low=4, high=20),
    Param("n_orders", "int", 12, 64, "variable orders per decoy-selector instance above 6 variables (every order "
          "at 6 or fewer)", low=1, high=10**4),
))

CH2_LEARNABILITY = ParameterSpec("02_estimating_learnability",
                                 "Chapter 2. Estimating learnability with polylogarithmically many labels", (
    Param("n", "int", 16, help="dimension d of the cube; errors are exact on it", low=8, high=20),
    Param("n_train", "int", 20000, 100000, "|S|, the unlabelled training set", low=100, high=10**7),
    Param("sizes", "int_list", [8, 16, 32, 64], [8, 16, 32, 64, 128, 256], "size parameters t", low=2, high=4096,
          sort=True),
    Param("batch_sizes", "int_list", [2, 4, 8, 16, 32, 64, 128, 256, 512], [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
          "minibatch sizes b of Theorem 1 (the largest is compared with the full batch)", low=1, high=10**6, sort=True),
    Param("dims", "int_list", [8, 12, 16], [8, 12, 16, 20], "dimensions d of the b-versus-d experiment", low=4,
          high=20, sort=True),
    Param("repetitions", "int", 3, 10, "independent data sets per grid point", low=1, high=1000),
    Param("eta", "real", 0.25, help="size accuracy of Theorem 2", low=0.0, high=0.5),
    Param("delta", "real", 0.1, help="failure probability of the bounds", low=0.0, high=0.5),
    Param("n_test", "int", 400, help="|S_test|", low=10, high=10**6),
    Param("train_sizes", "int_list", [5000, 20000, 80000, 320000], [5000, 20000, 80000, 320000, 1280000],
          "|S°| grid of the Theorem 3 label count", low=100, high=10**7, sort=True),
    Param("n_draws", "int", 4000, 20000, "draws of the m strands per m (Lemma C.1)", low=100, high=10**7),
    Param("n_queries", "int", 12, 50, "LocalLearner queries per t (Theorem 2)", low=1, high=10**4),
    Param("n_tprime", "int", 20, 100, "runs per t and strand count of the t′ experiment (Theorem 5)", low=1,
          high=10**4),
    Param("n_pure", "int", 5, 20, "runs per t of the pure-minibatch experiment (Theorem 5)", low=1, high=10**4),
    Param("n_savings", "int", 4, 12, "LocalLearner queries per t of the savings workload", low=1, high=10**4),
    Param("benchmark_m", "int", 200_000, 1_000_000, "points of the speed benchmark", low=100, high=10**7),
    Param("benchmark_d", "int", 32, 64, "features of the speed benchmark", low=2, high=1024),
    Param("benchmark_t", "int", 64, 256, "leaves of the speed benchmark", low=2, high=4096),
    Param("wl_restarts", "int", 3, 8, "random restarts of the worst-monotone-list search (Theorem 1)", low=1,
          high=1000),
    Param("wl_steps", "int", 3, 6, "hill-climbing steps per restart of that search", low=1, high=1000),
    Param("wl_neighbours", "int", 4, 6, "random moves tried per step of that search", low=1, high=100),
    Param("wl_search_reps", "int", 2, 3, "orders per candidate list (common random numbers)", low=1, high=100),
    Param("wl_runs", "int", 5, 20, "fresh runs per b at the worst list found", low=1, high=10**4),
    Param("t5w_restarts", "int", 6, 16, "random restarts per t of the worst-member search of Theorem 5", low=1,
          high=1000),
    Param("t5w_steps", "int", 8, 12, "hill-climbing steps per restart of that search", low=1, high=1000),
    Param("t5w_neighbours", "int", 5, 6, "random moves tried per step of that search", low=1, high=100),
    Param("t5w_runs", "int", 100, 400, "runs per strand count at the worst member found", low=1, high=10**5),
))

CH3_STOCHASTIC = ParameterSpec("03_stochastic_trees", "Chapter 3. Stochastic decision trees under nasty noise", (
    Param("n", "int", 10, 12, "cube dimension (exact evaluation on all 2^n points)", low=4, high=14),
    Param("size", "int", 8, 12, "size s (leaves) of the random stochastic target", low=2, high=64),
    Param("n_stochastic", "int", 3, 4, "coin nodes of the target", low=0, high=lambda p: p["size"] - 1,
          range_text="in [0, size − 1]"),
    Param("target_depth", "int", 3, help="most variable queries on a path of the target", low=1,
          high=lambda p: p["n"], range_text="in [1, n]"),
    Param("m", "int", 3000, 20000, "clean sample size", low=50, high=10**7),
    Param("depth", "int", 3, help="FIND's depth budget d", low=0, high=lambda p: p["n"],
          range_text="in [0, n]"),
    Param("degree", "int", 2, help="degree of the L2 / L1 regressions", low=0, high=lambda p: p["n"],
          range_text="in [0, n]"),
    Param("eta_grid", "real_list", [0.0, 0.05, 0.1, 0.2], [0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3],
          "corruption rates", low=0.0, high=0.5, low_open=False, sort=True),
    Param("repetitions", "int", 2, 5, "clean samples per (adversary, η)", low=1, high=1000),
    Param("c_grid", "int_list", [1, 2, 4, 8], [1, 2, 4, 8, 16, 32], "numbers of stacked copies c of Lemma 2.1",
          low=1, high=64),
    Param("lemma_draws", "int", 8, 30, "random draws per c of Lemma 2.1", low=1, high=10**4),
    Param("benchmark_m", "int", 10000, help="sample size of the FIND vs pystreed benchmark", low=100, high=10**6),
    Param("delta", "real", 0.05, help="confidence of the Hoeffding term of Theorem 3", low=0.0, high=1.0),
    Param("pair_repetitions", "int", 40, 60, "corrupted samples per target of the indistinguishable pair "
          "(from 36 covered ones on, the 2η rows have power 0.8 and are counted)", low=2, high=1000),
    Param("deep_depth", "int", 5, 6, "query depth of the deep target of the depth sweep (Corollary 4.1)",
          low=2, high=lambda p: min(p["n"], 8), range_text="in [2, min(n, 8)]; from 4 on, Corollary 4.1's ε is below 1/2"),
    Param("search_restarts", "int", 2, 12, "random targets of the Theorem 1/3 worst-member search", low=1, high=1000),
    Param("search_steps", "int", 1, 12, "local-search steps of the Theorem 1/3 worst-member search", low=0, high=1000),
    Param("confirm_reps", "int", 4, 10, "fresh samples at the worst member found (Theorems 1/3)", low=1, high=1000),
    Param("exponent_etas", "real_list", [0.02, 0.03, 0.05, 0.08, 0.12, 0.2],
          [0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.16, 0.2, 0.3], "corruption rates of the exponent fit (at least 6)",
          low=0.0, high=0.5, sort=True, min_length=6),
    Param("exponent_reps", "int", 1, 4, "clean samples per (learner, η) of the exponent fit", low=1, high=1000),
    Param("l2_m", "int", 0, 1812000, "sample size of the Theorem 4 (L2) row; 0: not run (Lemma 5.2's ε < 0.1 needs "
          "m ≥ 1,239,327 at n 10 and 1,811,217 at n 12, degree 2)", low=0, high=10**7),
), checks=(_ch3_constraints,))

CH4_PRODUCT = ParameterSpec("04_product_spaces", "Chapter 4. Top-down learning on product spaces", (
    Param("biases", "real_list", [0.5, 0.3, 0.1], help="Pr[x_i is 1] of each product distribution", low=0.0,
          high=1.0),
    Param("eps", "real", 0.1, help="target error of the exact runs", low=0.0, high=0.5),
    Param("delta", "real", 0.1, help="failure probability of Algorithm 2", low=0.0, high=1.0),
    Param("n_exact", "int", 8, 10, "cube dimension of the exact checks", low=4, high=14),
    Param("n_functions", "int", 40, 200, "random functions per exact check and bias", low=1, high=10**5),
    Param("fig2_n", "int", 20, help="dimension of Figure 2(a) (paper: 20)", low=5, high=24),
    Param("fig2_eps", "real_list", [0.3, 0.2, 0.15], [0.10, 0.15, 0.20, 0.25, 0.30],
          "errors of Figure 2(a) (paper: 0.10 to 0.30)", low=0.0, high=1.0),
    Param("fig2_dims", "int_list", [3, 5, 7], [3, 4, 5, 6, 7], "dimensions of Figure 2(b) (paper: 3 to 7)",
          low=3, high=16),
    Param("reps", "int", 2, 6, "repetitions per Figure 2 configuration (paper: 6)", low=1, high=100),
    Param("lemma52_repetitions", "int", 30, 100, "repeated estimates per pair count of the Lemma 5.2 check", low=2,
          high=10**4),
    Param("selection_reps", "int", 20, 100, "runs per member of the Algorithm 2 selection audit and its schedule "
          "sweep", low=1, high=10**4),
))

CH5_ID3 = ParameterSpec("05_id3_smoothed", "Chapter 5. ID3 learns juntas under smoothed product distributions", (
    Param("n", "int", 20, help="features of the learning problems", low=2, high=400),
    Param("ks", "int_list", [2, 3, 4], help="junta / parity sizes k", low=1, high=lambda p: min(p["n"], 8),
          sort=True, range_text="each in [1, min(n, 8)]"),
    Param("alpha", "real", 0.1, help="the α of (α, c)-distributions", low=0.0, high=0.5),
    Param("c", "real", 0.15, help="margin |p_i − 1/2| and smoothing width", low=0.0,
          high=lambda p: 0.5 - p["alpha"], range_text="in (0, 1/2 − alpha)"),
    Param("cs", "real_list", [0.05, 0.1, 0.2], help="c-axis of the grids", low=0.0,
          high=lambda p: 0.5 - p["alpha"], sort=True, range_text="each in (0, 1/2 − alpha)"),
    Param("reps", "int", 20, 100, "runs per grid point", low=2),
    Param("m_grid", "int_list", [100, 300, 1000, 3000, 10000], [100, 300, 1000, 3000, 10000, 30000, 100000],
          "sample sizes", low=1, sort=True),
    Param("impurity", "str", "gini", help="impurity of ID3", choices=("gini", "entropy", "kearns_mansour")),
    Param("search_restarts", "int", 2, 8, "restarts of each hardest-member search (the first at the named boundary "
          "members)", low=1, high=1000),
    Param("search_sweeps", "int", 1, 2, "sweeps of coordinate moves per restart of the hardest-member searches",
          low=0, high=100),
    Param("search_runs", "int", 8, 40, "ID3 runs per member evaluated by the searches (common random numbers)",
          low=1, high=10**4),
    Param("m_cap_parity", "int", 30_000, 1_000_000, "largest m of the hardest parity member's curve (Theorem 5.1)",
          low=1, high=10**8),
    Param("m_cap_smoothed", "int", 10_000, 1_000_000, "largest m of the hardest smoothed member's curve "
          "(Theorem 5.3)", low=1, high=10**8),
))

APPENDIX_PERFORMANCE = ParameterSpec("appendix_performance", "Appendix. Performance", (
    Param("repetitions", "int", 3, 5, "interleaved timing rounds per benchmark", low=1, high=100),
    Param("n_exact", "int", 14, 20, "cube dimension of the exact BuildTopDownDT row", low=7, high=24),
    Param("exact_leaves", "int", 128, 1024, "leaves grown by BuildTopDownDT", low=2,
          high=lambda p: 2 ** (p["n_exact"] - 1), range_text="in [2, 2^(n_exact − 1)]"),
    Param("m_topdown", "int", 20_000, 1_000_000, "sample size of the TopDown_G row", low=100, high=10**7),
    Param("n_topdown", "int", 32, 64, "features of the TopDown_G row", low=8, high=256),
    Param("t_topdown", "int", 64, 256, "leaves of TopDown_G and scikit-learn's max_leaf_nodes", low=2, high=4096),
    Param("m_find", "int", 2_000, 10_000, "sample size of the FIND rows", low=50, high=10**6),
    Param("m_id3", "int", 5_000, 100_000, "sample size of the ID3 junta rows (noiseless and 10% noise)",
          low=100, high=10**7),
    Param("n_id3", "int", 40, 100, "features of the ID3 junta rows", low=8, high=1000),
    Param("m_id3_large", "int", 20_000, 1_000_000, "sample size of the ID3 row with 20% noise", low=100,
          high=10**7),
    Param("n_id3_large", "int", 32, 64, "features of the ID3 row with 20% noise", low=8, high=1000),
    Param("local_sizes", "int_list", [2_000, 10_000, 50_000], [10_000, 100_000, 1_000_000],
          "|S°| values of the LocalLearner rows", low=100, high=10**8),
    Param("scale_rows", "bool", False, True, "run the scale rows (TopDown_G and Est at m_scale points)"),
    Param("m_scale", "int", 100_000, 10_000_000, "points of the scale rows (TopDown_G: m_scale x 64, "
          "256 leaves; Est: the unlabelled set S° has m_scale points)", low=1_000, high=10**8),
), runs_locally="it times dtcore against its peers on this machine, one benchmark at a time, so a cluster "
                "would measure the network instead.")

def _ch6_constraints(p: Mapping[str, Any]) -> None:
    # flchain has 7874 rows; Est's pool keeps at least 2000 of them
    if p["n_test"] + p["n_heldout"] > 7874 - 2000:
        raise ValueError(f"n_heldout must be at most {7874 - 2000 - p['n_test']} (n_test + n_heldout <= 5874, "
                         f"so the pool keeps 2000 points), got {p['n_heldout']}")


CH6_REAL_DATA = ParameterSpec("06_real_data", "Chapter 6. Real data: the learners from scikit-learn", (
    Param("folds", "int", 5, 10, "stratified cross-validation folds", low=2, high=20),
    Param("depths", "int_list", [1, 2], [1, 2, 3], "depths d of FIND, CART and pystreed", low=1, high=4, sort=True),
    Param("leaf_sizes", "int_list", [2, 4, 8, 16, 32], [2, 4, 8, 16, 32, 64],
          "sizes t of TopDown_G and best-first CART", low=2, high=256, sort=True),
    Param("n_thresholds", "int", 4, low=1, high=64,
          help="quantile cut points per real-valued column (FIND at depth 3 slows down fast above 4)"),
    Param("est_sizes", "int_list", [2, 4, 8, 16, 32], [2, 4, 8, 16, 32, 64], "sizes t of Est", low=2,
          high=256, sort=True),
    Param("batch_size", "int", 64, help="Est's minibatch size b (and number of strands)", low=2, high=1024),
    Param("n_test", "int", 800, help="size of Est's test set S_test (flchain points)", low=50, high=3000),
    Param("n_heldout", "int", 1000, help="held-out points that score the trees T_t", low=50, high=3000),
    Param("delta", "real", 0.05, help="confidence of the Hoeffding intervals", low=0.0, high=1.0),
    Param("budget_repeats", "int", 5, 10, "draws of random pool labels for cross-validation at Est's label budget",
          low=1, high=100),
    Param("sklearn_rows", "int", 5000, 50000, "training (and test) rows of the make_classification problem on "
          "which the estimators meet scikit-learn's tree", low=100, high=200000),
), checks=(_ch6_constraints,),
    runs_locally="its cross-validation folds and learners run one after another in the notebook's kernel "
                 "(no `sweep`); its data sets are small.")

#: The chapters that have a fault catalogue (``faults/<chapter>.toml``).
FAULT_CHAPTERS = ("01_top_down_guarantees", "02_estimating_learnability", "03_stochastic_trees",
                  "04_product_spaces", "05_id3_smoothed", "06_real_data", "07_every_function")

APPENDIX_FAULTS = ParameterSpec("appendix_faults", "Appendix. What the checks catch", (
    Param("chapters", "str_list", list(FAULT_CHAPTERS), help="the chapters whose faults are run",
          choices=FAULT_CHAPTERS, range_text="each a chapter with a fault catalogue"),
    Param("jobs", "int", 2, help="chapters run at once, each in its own papermill process", low=1, high=16),
), common=(),
    runs_locally="each fault runs its chapter in a papermill process on this machine (`jobs` at a time), "
                 "against a patched copy of dtcore that a cluster's workers would not import; those runs "
                 "keep their sweeps local too.")

# --- The exhaustive page: every function on four variables (book/07_every_function.ipynb) ---------

def _ch7_constraints(p: Mapping[str, Any]) -> None:
    pairs = p["alpha_c"]
    if len(pairs) % 2:
        raise ValueError(f"alpha_c must list (alpha, c) pairs, an even number of values, got {pairs!r}")
    for alpha, c in zip(pairs[::2], pairs[1::2]):
        if not c < 0.5 - alpha:
            raise ValueError(f"alpha_c must have c < 1/2 - alpha in every pair, got alpha = {alpha}, c = {c}")


CH7_EVERY_FUNCTION = ParameterSpec("07_every_function", "Every function on four variables", (
    Param("n_random_measures", "int", 4, 40, "random product measures added to the fixed grid of 12", low=0,
          high=1000),
    Param("eps_grid", "real_list", [0.25, 0.125, 0.05], [0.3, 0.25, 0.2, 0.125, 0.1, 0.05],
          "errors of BuildTopDownDT against the optimum (below 1/16 it learns exactly)", low=0.0, high=0.5,
          sort=True),
    Param("alpha_c", "real_list", [0.1, 0.15, 0.2, 0.1], [0.05, 0.2, 0.1, 0.15, 0.2, 0.1, 0.1, 0.3, 0.3, 0.1],
          "(alpha, c) pairs of BDM20 Lemma 9, flattened: alpha_1, c_1, alpha_2, c_2, ...", low=0.0, high=0.5),
    Param("impurity_grid", "int", 1001, 4001, "grid points per axis of the impurity constants", low=11,
          high=20001),
    Param("lemma11_draws", "int", 256, 4096, "Monte Carlo draws of the smoothing per centre (BDM20 Lemma 11)",
          low=2, high=10**6),
    Param("search_budget", "int", 0, 20000, "functions evaluated per local search at n 5 and 6 (0: no search)",
          low=0, high=10**7),
    Param("search_restarts", "int", 4, 16, "random restarts per local search", low=0, high=1000),
), checks=(_ch7_constraints,),
    runs_locally="every function on n <= 4 is evaluated at once by vectorised NumPy in the notebook's kernel, "
                 "and the local searches at n = 5, 6 are sequential, so there is no task list to hand to a cluster.")


SPECS: dict[str, ParameterSpec] = {s.chapter: s for s in (CH1_TOP_DOWN, CH2_LEARNABILITY, CH3_STOCHASTIC,
                                                           CH4_PRODUCT, CH5_ID3, CH6_REAL_DATA,
                                                           CH7_EVERY_FUNCTION, APPENDIX_PERFORMANCE, APPENDIX_FAULTS)}


README_START = "<!-- parameter tables: start (generated by `.venv/bin/python -m dtbook.specs --update-readme`) -->"
README_END = "<!-- parameter tables: end -->"


def readme_tables() -> str:
    """The README's parameter section body: one small table per chapter."""
    return "\n\n".join(spec.markdown() for spec in SPECS.values())


def update_readme(path: pathlib.Path) -> None:
    """Rewrite the block between the README's two parameter-table markers."""
    text = path.read_text()
    start, end = text.index(README_START), text.index(README_END)
    path.write_text(text[:start] + README_START + "\n\n" + readme_tables() + "\n\n" + text[end:])


def parameter_cell(spec: ParameterSpec) -> str:
    """The ``parameters`` cell of ``spec``'s notebook (:meth:`ParameterSpec.parameter_cell`)."""
    return spec.parameter_cell()


def update_notebooks(book_dir: pathlib.Path, chapters: Sequence[str] | None = None) -> list[str]:
    """Rewrite the ``parameters`` cell of every notebook (or of ``chapters``) from its specification;
    return the chapters whose cell changed. Nothing else of the notebook is touched."""
    changed = []
    for chapter in chapters or list(SPECS):
        path = book_dir / f"{chapter}.ipynb"
        notebook = json.loads(path.read_text())
        cells = [c for c in notebook["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
        if len(cells) != 1:
            raise ValueError(f"{path} must have one cell tagged 'parameters', got {len(cells)}")
        source = parameter_cell(SPECS[chapter])
        if "".join(cells[0]["source"]) != source:
            cells[0]["source"] = source.splitlines(keepends=True)
            path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
            changed.append(chapter)
    return changed


if __name__ == "__main__":
    if sys.argv[1:] == ["--update-readme"]:
        update_readme(REPO_ROOT / "README.md")
    elif sys.argv[1:] == ["--update-notebooks"]:
        for name in update_notebooks(REPO_ROOT / "book"):
            print(f"rewrote the parameters cell of book/{name}.ipynb")
    else:
        print(readme_tables())
