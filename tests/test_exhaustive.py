"""The exhaustive layer against brute force (n <= 3) and against dtcore's single-function code."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from dtcore import analysis, exhaustive as ex, smoothed, stochastic
from dtcore.buildtopdown import build_top_down_dt
from dtcore.cube import ProductDistribution, all_points
from dtcore.id3 import id3
from dtcore.topdown import top_down
from dtcore.tree import DecisionTree

MEASURE = ProductDistribution([0.1, 0.5, 0.75])


def brute_optimum(table: np.ndarray, dist: ProductDistribution) -> tuple[int, int, float]:
    """(min size, min depth, min average depth) by plain recursion on restrictions, memoised on the table."""
    n = int(np.log2(table.size))

    @functools.lru_cache(maxsize=None)
    def solve(fixed: tuple[tuple[int, int], ...]) -> tuple[int, int, float]:
        sub, free = analysis.restrict(table, dict(fixed))
        if sub.min() == sub.max():
            return 1, 0, 0.0
        best = (10**9, 10**9, np.inf)
        for i in free:
            a0 = solve(tuple(sorted(fixed + ((i, 0),))))
            a1 = solve(tuple(sorted(fixed + ((i, 1),))))
            p = dist.p[i]
            best = (min(best[0], a0[0] + a1[0]), min(best[1], 1 + max(a0[1], a1[1])),
                    min(best[2], 1 + (1 - p) * a0[2] + p * a1[2]))
        return best

    assert n == dist.n
    return solve(())


def test_all_tables_lists_every_function_once():
    tables = ex.all_tables(3)
    assert tables.shape == (256, 8)
    assert np.unique(ex.pack(tables)).size == 256
    np.testing.assert_array_equal(ex.unpack(ex.pack(tables), 3), tables)
    assert ex.pack(tables)[5] == 5  # row k is the function whose table is the bits of k


def test_optimal_trees_and_average_depth_match_brute_force_on_every_function_of_three_variables():
    tables = ex.all_tables(3)
    opt = ex.optimal_trees(tables)
    avg = ex.minimum_average_depth(tables, MEASURE)
    brute = np.array([brute_optimum(t, MEASURE) for t in tables])
    np.testing.assert_array_equal(opt.root_size, brute[:, 0])
    np.testing.assert_array_equal(opt.root_depth, brute[:, 1])
    np.testing.assert_allclose(avg, brute[:, 2], rtol=0, atol=1e-12)


def test_depth_capped_average_depth_is_monotone_and_infinite_below_the_minimum_depth():
    tables = ex.all_tables(3)
    caps = ex.minimum_average_depth_by_cap(tables, MEASURE)
    depth = ex.optimal_trees(tables).root_depth
    for d in range(4):
        assert np.all(np.isinf(caps[d]) == (depth > d))
    finite = np.isfinite(caps[:-1])
    assert np.all(caps[1:][finite] <= caps[:-1][finite] + 1e-12)


def test_optimal_tree_computes_the_function_with_the_minimum_size_and_depth():
    rng = np.random.default_rng(1)
    tables = ex.all_tables(4)[rng.choice(65536, 12, replace=False)]
    opt = ex.optimal_trees(tables)
    for k, t in enumerate(tables):
        small, shallow = ex.optimal_tree(t, "size"), ex.optimal_tree(t, "depth")
        np.testing.assert_array_equal(small.truth_table(), t)
        np.testing.assert_array_equal(shallow.truth_table(), t)
        assert small.size == opt.root_size[k] and shallow.depth == opt.root_depth[k]


@pytest.mark.parametrize("dist,kind", [(None, "flip"), (MEASURE, "flip"), (MEASURE, "rerandomised")])
def test_subcube_statistics_match_exact_measure_on_every_function_and_subcube(dist, kind):
    tables = ex.all_tables(3)
    stats = ex.subcube_statistics(tables, dist, kind)
    sub = ex.subcubes(3)
    for b in range(0, 256, 5):
        measure = analysis.ExactMeasure(tables[b], dist, kind)
        got = np.array([np.concatenate([[p], [one], inf]) for p, one, inf in map(measure.region, sub.restrictions)])
        want = np.column_stack([stats.p_reach, stats.mass_one[b], stats.weighted_influence[b]])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)


@pytest.mark.parametrize("dist", [None, ProductDistribution([0.05, 0.3, 0.5, 0.9])])
def test_fourier_spectra_give_parseval_variance_and_influences(dist):
    rng = np.random.default_rng(2)
    tables = ex.all_tables(4)[rng.choice(65536, 300, replace=False)]
    coeffs = ex.fourier_spectra(tables, dist)
    np.testing.assert_allclose((coeffs**2).sum(axis=1), 1.0, atol=1e-12)
    variance, inf = ex.spectral_influences(coeffs, dist, "rerandomised")
    stats = ex.subcube_statistics(tables, dist, "rerandomised")
    root = ex.subcubes(4).root
    np.testing.assert_allclose(variance, stats.variance[:, root], atol=1e-12)
    np.testing.assert_allclose(inf, stats.influences[:, root], atol=1e-12)
    if dist is None:
        np.testing.assert_allclose(coeffs[:7], np.array([analysis.walsh_hadamard(1.0 - 2.0 * t) for t in tables[:7]]),
                                   atol=1e-15)


def test_lock_step_build_top_down_dt_reproduces_the_single_function_learner():
    tables = ex.all_tables(4)
    stats = ex.subcube_statistics(tables)
    score, feature = ex.build_top_down_scores(stats)
    runs = ex.best_first_runs(score, feature, 4, totals={"error": stats.error, "cost": stats.cost})
    rng = np.random.default_rng(3)
    for b in rng.choice(65536, 40, replace=False):
        for eps in (0.2, 0.1, 0.01):
            result = build_top_down_dt(tables[b], eps=eps)
            assert result.tree.size == runs.size_at("error", eps)[b]
        trace = build_top_down_dt(tables[b], eps=0.01).trace
        steps = len(trace) - 1
        np.testing.assert_allclose(runs.score[b, :steps], trace["score"][:steps])
        np.testing.assert_allclose(runs.totals["cost"][b, :steps + 1], trace["cost"], atol=1e-15)


def test_lock_step_runs_under_a_biased_measure_match_the_learner():
    dist = ProductDistribution([0.1, 0.3, 0.65])
    tables = ex.all_tables(3)
    stats = ex.subcube_statistics(tables, dist, "rerandomised")
    score, feature = ex.build_top_down_scores(stats)
    runs = ex.best_first_runs(score, feature, 3, totals={"error": stats.error})
    sizes = np.array([build_top_down_dt(t, eps=1e-9, dist=dist, kind="rerandomised").tree.size for t in tables])
    np.testing.assert_array_equal(runs.size_at("error", 1e-9), sizes)


@pytest.mark.parametrize("impurity", ["gini", "entropy"])
def test_top_down_and_id3_on_the_whole_cube_match_the_learners(impurity):
    X = all_points(4)
    tables = ex.all_tables(4)
    rng = np.random.default_rng(4)
    picks = rng.choice(65536, 40, replace=False)
    score, feature = ex.top_down_scores(tables[picks], impurity)
    runs = ex.best_first_runs(score, feature, 4)
    sizes, depths = ex.id3_sizes(tables[picks], impurity)
    for k, b in enumerate(picks):
        assert top_down(X, tables[b], size=16, impurity=impurity).tree.size == runs.size[k]
        tree = id3(X, tables[b], impurity=impurity).tree
        assert (tree.size, tree.depth) == (sizes[k], depths[k])


def test_frontier_replay_partitions_the_cube():
    tables = ex.all_tables(3)
    stats = ex.subcube_statistics(tables)
    runs = ex.best_first_runs(*ex.build_top_down_scores(stats), 3)
    sub = ex.subcubes(3)
    leaves = runs.frontier(150, int(runs.size[150]) - 1)
    assert len(leaves) == runs.size[150]
    covered = np.bitwise_or.reduce(sub.masks[leaves])
    assert covered == np.uint64(255) and sum(int(m).bit_count() for m in sub.masks[leaves]) == 8


def test_bad_inputs_raise_value_errors_naming_the_argument():
    with pytest.raises(ValueError, match="n must be"):
        ex.all_tables(5)
    with pytest.raises(ValueError, match="tables must"):
        ex.optimal_trees(np.zeros((3, 6), dtype=np.uint8))
    with pytest.raises(ValueError, match="tables must hold only 0/1"):
        ex.pack(np.full((2, 4), 2))
    with pytest.raises(ValueError, match="kind must be"):
        ex.subcube_statistics(ex.all_tables(2), kind="bogus")
    with pytest.raises(ValueError, match="objective must be"):
        ex.optimal_tree(np.array([0, 1, 1, 0]), "leaves")


def _path_depth_brute(table, p, restriction):
    """Least average depth of a path tree on one subcube, by plain recursion (no lattice)."""
    n = len(p)
    points = [x for x in range(2**n) if all(r < 0 or ((x >> i) & 1) == r for i, r in enumerate(restriction))]
    values = {int(table[x]) for x in points}
    if len(values) == 1:
        return 0.0
    best = np.inf
    for i in [i for i, r in enumerate(restriction) if r < 0]:
        for b in (0, 1):
            leaf = list(restriction); leaf[i] = b
            rest = list(restriction); rest[i] = 1 - b
            leaf_points = [x for x in points if ((x >> i) & 1) == b]
            if len({int(table[x]) for x in leaf_points}) == 1:
                go_on = p[i] if b == 0 else 1 - p[i]
                best = min(best, 1 + go_on * _path_depth_brute(table, p, rest))
    return best


def test_minimum_path_average_depth_matches_plain_recursion_and_the_path_formula():
    p = [0.2, 0.5, 0.7]
    tables = ex.all_tables(3)
    fast = ex.minimum_path_average_depth(tables, ProductDistribution(p))
    slow = np.array([_path_depth_brute(t, p, [-1, -1, -1]) for t in tables])
    np.testing.assert_allclose(fast, slow, atol=1e-12)
    uniform = ex.minimum_path_average_depth(ex.all_tables(4))
    assert np.isinf(uniform[0x6996]) and uniform[0x0001] == 1.875  # parity is no decision list; NOR is


def test_stochastic_mean_tables_hold_every_small_tree_and_nothing_else():
    tables = ex.stochastic_mean_tables(1, 1, (0.5,))
    assert sorted(map(tuple, tables)) == [(0.0, 0.0), (0.0, 1.0), (0.5, 0.5), (1.0, 0.0), (1.0, 1.0)]
    tree = DecisionTree(2)
    c0, c1 = tree.split_stochastic(0, 0.25)
    a, b = tree.split(c1, 1)
    for leaf, value in ((c0, 1.0), (a, 0.0), (b, 1.0)):
        tree.set_value(leaf, value)
    found = ex.stochastic_mean_tables(2, 2, (0.25, 0.5))
    assert np.isclose(found, stochastic.mean_table(tree)).all(axis=1).any()


def test_copies_mean_deviation_matches_enumerating_the_copies():
    mu, c = 0.3, 3
    outcomes = np.array(list(itertools.product((0, 1), repeat=c)))
    prob = np.prod(np.where(outcomes == 1, mu, 1 - mu), axis=1)
    brute = float((prob * np.abs(outcomes.mean(axis=1) - mu)).sum())
    assert stochastic.copies_mean_deviation(np.array([mu]), c)[0] == pytest.approx(brute, abs=1e-14)
    np.testing.assert_allclose(stochastic.copies_mean_deviation(np.array([0.0, 0.5, 1.0]), 1), [0.0, 0.5, 0.0])


def test_smoothed_covariance_failure_is_exact_for_a_dictator_and_agrees_with_plain_sampling():
    rng = np.random.default_rng(0)
    # f = x0 on one variable: I = p (1 - p), p uniform on [0.3, 0.5]; p(1-p) <= 0.24 iff p <= 0.4
    est, se = smoothed.smoothed_covariance_failure(np.array([[0, 1]]), np.array([0.4]), 0.1, np.array([0.24]), rng=rng, draws=4000)
    assert est[0, 0, 0] == pytest.approx(0.5, abs=0.03)
    xor = np.array([[0, 1, 1, 0]])
    est, se = smoothed.smoothed_covariance_failure(xor, np.array([0.5, 0.5]), 0.2, np.array([0.01]), rng=rng, draws=2000)
    p = 0.5 + rng.uniform(-0.2, 0.2, size=(20000, 2))
    plain = (np.abs(p[:, 0] * (1 - p[:, 0]) * (1 - 2 * p[:, 1])) <= 0.01).mean()  # I(D, 0) of x0 xor x1
    assert est[0, 0, 0] == pytest.approx(plain, abs=4 * se[0, 0, 0] + 0.01)


def test_atlas_rows_kinds_follow_the_verdicts():
    import pandas as pd

    from dtbook.experiments.exhaustive import atlas as experiment
    from dtbook.report import VerificationTable, lint_table

    base = dict(paper="MGBH26", statement="s", table="00ff", measure="uniform",
                worse_output="the one-leaf tree, at the witness", worse_ratio=float("inf"))
    frame = pd.DataFrame([
        dict(base, result="Lemma C.1", form="as printed", sup_ratio=2.0, verdict="violated", exact_ratio="2"),
        dict(base, result="Lemma C.1", form="corrected (factor 2)", sup_ratio=1.0, verdict="tight", exact_ratio=None),
        dict(base, result="Lemma 4.2", form="depth form", sup_ratio=0.5, verdict="slack by 2", exact_ratio=None),
        dict(base, paper="BDM20", result="Lemma 6", form="gini, proof's step (beta I^2 / (2 p(1-p)))", sup_ratio=1.0,
             verdict="tight", exact_ratio=None),
        dict(base, result="Lemma E.1", form="least Delta", sup_ratio=1.5, verdict="violated", exact_ratio="3/2"),
    ])
    table = VerificationTable()
    experiment.check_atlas(table, frame, known_equalities=set(), own_rows={"Lemma E.1"})
    kinds = [row["kind"] for row in table.rows]
    # the printed C.1 is refuted (and counted once) in chapter 4, only shown here; the attainment of a tight bound
    # restates the theorem row's supremum: shown, not counted (issue 35);
    # a statement that holds by algebra (Lemma 6's proof step) is an observation
    assert kinds == ["observation", "theorem", "observation", "theorem", "observation"]
    assert all(row["box"] for row in table.rows)
    assert lint_table(table) == []
    assert table.rows[1]["fails_under_fails"] and table.rows[3]["fails_under_fails"]
    # a worse output that passes the bound too leaves the row without power: it is shown, not counted
    weak = VerificationTable()
    experiment.check_atlas(weak, frame.iloc[[2]].assign(worse_ratio=0.9), known_equalities=set(), own_rows=set())
    assert [row["kind"] for row in weak.rows] == ["observation"] and "no power" in weak.rows[0]["note"]
    # a bound exceeded without an exact confirmation fails its theorem row
    failing = VerificationTable()
    experiment.check_atlas(failing, frame.iloc[[2]].assign(sup_ratio=1.01), known_equalities=set(), own_rows=set())
    assert not failing.rows[0]["holds"]
    with pytest.raises(ValueError, match="result must be"):
        experiment.atlas_provenance("Lemma 99", "x")
