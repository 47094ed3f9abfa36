
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcore.audit import replay
from dtcore.buildtopdown import build_top_down_dt
from dtcore import analysis
from dtcore.cube import ProductDistribution, all_points, truth_table
from dtcore.functions import majority, parity, random_tree
from hypothesis import given, settings, strategies as st
from dtcore.analysis import ExactMeasure, influences, mean, restrict


def brute_influence(table, p, kind):
    """Inf_i by enumerating x and the redrawn coordinate (independent of dtcore's implementation)."""
    n = len(p)
    pts = all_points(n)
    out = np.zeros(n)
    for k, x in enumerate(pts):
        wx = np.prod([p[j] if x[j] else 1 - p[j] for j in range(n)])
        for i in range(n):
            y = x.copy()
            y[i] ^= 1
            k2 = int(sum(int(v) << j for j, v in enumerate(y)))
            differs = table[k] != table[k2]
            if kind == "flip":
                out[i] += wx * differs
            else:  # redraw x_i: lands on the other value with probability p or 1 - p
                out[i] += wx * differs * (p[i] if x[i] == 0 else 1 - p[i])
    return out


def test_parity_influences_are_one():
    t = truth_table(lambda X: parity(X), 5)
    assert np.allclose(analysis.influences(t), 1.0)
    assert analysis.total_influence(t) == pytest.approx(5.0)
    assert analysis.variance(t) == pytest.approx(1.0)


def test_majority3_influences_are_half():
    t = truth_table(lambda X: majority(X), 3)
    assert np.allclose(analysis.influences(t), 0.5)
    assert analysis.constant_error(t) == pytest.approx(0.5)


def test_dictator_rerandomised_influence_is_2p_1_minus_p():
    t = truth_table(lambda X: X[:, 1], 3)
    d = ProductDistribution([0.5, 0.3, 0.9])
    inf = analysis.influences(t, d, kind="rerandomised")
    assert np.allclose(inf, [0.0, 2 * 0.3 * 0.7, 0.0])
    assert analysis.variance(t, d) == pytest.approx(4 * 0.3 * 0.7)


@pytest.mark.parametrize("kind", ["flip", "rerandomised"])
def test_influences_against_brute_force(kind):
    rng = np.random.default_rng(0)
    for _ in range(5):
        p = rng.uniform(0.05, 0.95, size=4)
        t = (rng.random(16) < 0.5).astype(np.uint8)
        assert np.allclose(analysis.influences(t, ProductDistribution(p), kind), brute_influence(t, p, kind))


def test_bad_kind():
    with pytest.raises(ValueError, match="kind must be"):
        analysis.influences(np.array([0, 1]), kind="resample")


def test_restrict_and_flipped():
    t = truth_table(lambda X: X[:, 0] & ~X[:, 2] & 1, 3)
    sub, free = analysis.restrict(t, {2: 0})
    assert free == [0, 1]
    assert sub.tolist() == [0, 1, 0, 1]
    assert analysis.flipped(np.array([0, 1, 1, 1], dtype=np.uint8), 0).tolist() == [1, 0, 1, 1]
    with pytest.raises(ValueError, match="restriction value"):
        analysis.restrict(t, {0: 2})


def test_walsh_hadamard_against_definition():
    rng = np.random.default_rng(1)
    g = rng.normal(size=8)
    pts = all_points(3)
    coef = analysis.walsh_hadamard(g)
    for S in range(8):
        chi = (-1.0) ** ((pts @ [(S >> i) & 1 for i in range(3)]) % 2)
        assert coef[S] == pytest.approx(np.mean(g * chi))


@pytest.mark.parametrize("p", [None, [0.3, 0.6, 0.5, 0.8, 0.1]])
def test_exact_measure_region_against_restrict(p):
    rng = np.random.default_rng(2)
    n = 5
    dist = None if p is None else ProductDistribution(p)
    for _ in range(20):
        t = (rng.random(2**n) < 0.4).astype(np.uint8)
        m = analysis.ExactMeasure(t, dist)
        r = rng.integers(-1, 2, size=n).astype(np.int8)
        p_reach, one, winf = m.region(r)
        fixed = {i: int(v) for i, v in enumerate(r) if v >= 0}
        sub, free = analysis.restrict(t, fixed)
        pp = np.full(n, 0.5) if p is None else np.asarray(p)
        expected_reach = np.prod([pp[i] if v else 1 - pp[i] for i, v in fixed.items()])
        assert p_reach == pytest.approx(expected_reach)
        sub_dist = ProductDistribution(pp[free]) if free else None
        if free:
            assert one == pytest.approx(expected_reach * analysis.mean(sub, sub_dist))
            sub_inf = analysis.influences(sub, sub_dist)
            assert np.allclose(winf[free], expected_reach * sub_inf)
        assert np.all(winf[r >= 0] == 0)


def random_function_and_tree(seed, n):
    rng = np.random.default_rng(seed)
    f = (rng.random(2**n) < rng.uniform(0.1, 0.9)).astype(np.uint8)
    bare = random_tree(n, int(rng.integers(1, 2 ** min(n, 4) + 1)), rng=rng)
    return rng, f, bare


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 7))
def test_lemma51_error_at_most_cost(seed, n):
    _, f, bare = random_function_and_tree(seed, n)
    assert analysis.completion_error(bare, f) <= analysis.cost(bare, f) + 1e-12


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 7), product=st.booleans())
def test_lemma51_split_lowers_cost_by_exactly_the_score(seed, n, product):
    rng, f, bare = random_function_and_tree(seed, n)
    dist = ProductDistribution(rng.uniform(0.1, 0.9, size=n)) if product else None
    kind = "rerandomised" if product else "flip"
    pos = int(rng.integers(bare.size))
    free = np.flatnonzero(bare.leaf_restrictions()[pos] < 0)
    if free.size == 0:
        return
    size_before = bare.size
    drop, score = analysis.split_cost_drop(bare, f, pos, int(rng.choice(free)), dist, kind)
    assert drop == pytest.approx(score, abs=1e-12)
    assert bare.size == size_before  # the tree itself is left alone


def test_split_cost_drop_on_parity_and_bad_feature():
    f = truth_table(lambda X: parity(X), 3)
    bare = random_tree(3, 2, rng=np.random.default_rng(0))  # one split: each leaf has weight 1/2
    fixed = int(np.flatnonzero(bare.leaf_restrictions()[0] >= 0)[0])
    free = int(np.flatnonzero(bare.leaf_restrictions()[0] < 0)[0])
    assert analysis.split_cost_drop(bare, f, 0, free) == pytest.approx((0.5, 0.5))
    with pytest.raises(ValueError, match="feature must be a free variable"):
        analysis.split_cost_drop(bare, f, 0, fixed)
    with pytest.raises(ValueError, match="leaf_position"):
        analysis.split_cost_drop(bare, f, 5, free)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8), s=st.integers(2, 24))
def test_osss_and_inf_at_most_depth_times_variance(seed, n, s):
    rng = np.random.default_rng(seed)
    tree = random_tree(n, min(s, 2**n), rng=rng)
    f = tree.truth_table()
    inf = analysis.influences(f)
    var = analysis.variance(f)
    assert inf.max() >= var / np.log2(tree.size) - 1e-12          # OSSS
    assert inf.sum() <= tree.depth * var + 1e-12                  # Inf <= D * Var
    assert inf.sum() <= tree.average_depth() + 1e-12              # Inf <= Delta


def test_complete_labels_by_majority():
    t = truth_table(lambda X: majority(X), 3)
    bare = random_tree(3, 1, rng=np.random.default_rng(0))
    done = analysis.complete(bare, t)
    assert done.leaf_values().tolist() == [1.0]  # tie at 1/2 goes to 1
    full = random_tree(3, 8, rng=np.random.default_rng(0))
    assert np.array_equal(analysis.complete(full, t).truth_table(), t)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8))
def test_fourier_variance_and_influences_match_counting(seed, n):
    rng = np.random.default_rng(seed)
    f = (rng.random(2**n) < rng.uniform(0.05, 0.95)).astype(np.uint8)
    var, inf = analysis.fourier_variance_and_influences(f)
    assert var == pytest.approx(analysis.variance(f), abs=1e-12)
    assert np.allclose(inf, analysis.influences(f), atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 8), eps=st.sampled_from([0.02, 0.1, 0.3]))
def test_replay_agrees_with_the_scorer(seed, n, eps):
    from dtcore.buildtopdown import build_top_down_dt
    rng = np.random.default_rng(seed)
    f = random_tree(n, int(rng.integers(2, 2 ** min(n, 4) + 1)), rng=rng).truth_table()
    run = build_top_down_dt(f, eps=eps)
    steps = replay.replay(run.tree, run.trace, f)
    assert len(steps) == len(run.trace)
    assert np.allclose(steps["cost"], run.trace["cost"], atol=1e-12)
    assert np.allclose(steps["error"], run.trace["error"], atol=1e-12)
    splits = steps[steps["node"] >= 0]
    assert np.allclose(splits["selected_score"], run.trace["score"].iloc[:-1], atol=1e-12)
    assert np.max((splits["best_score"] - splits["selected_score"]).to_numpy(), initial=0.0) <= 1e-12
    assert np.max(splits["influence_gap"].to_numpy(), initial=0.0) <= 1e-12
    assert steps["error"].iloc[-1] <= eps
    if len(splits):
        assert splits["error"].iloc[-1] > eps  # the run stopped at the first eps-close tree


def test_replay_rejects_a_tree_on_other_variables():
    f = truth_table(lambda X: parity(X), 3)
    run = build_top_down_dt(truth_table(lambda X: parity(X), 4), eps=0.1)
    with pytest.raises(ValueError, match="tree must be on n = 3"):
        replay.replay(run.tree, run.trace, f)


def test_replay_rejects_a_trace_of_another_run():
    f = truth_table(lambda X: parity(X, [0, 1]), 4)
    g = truth_table(lambda X: parity(X, [2, 3]), 4)
    run_f, run_g = build_top_down_dt(f, eps=0.1), build_top_down_dt(g, eps=0.1)
    with pytest.raises(ValueError, match="different runs"):
        replay.replay(run_f.tree, run_g.trace, f)
    with pytest.raises(ValueError, match="trace must"):
        replay.replay(run_f.tree, run_f.trace.drop(columns="node"), f)
    with pytest.raises(ValueError, match="trace must"):
        replay.replay(run_f.tree, run_f.trace.drop(columns="feature"), f)


# --- The bit-packed uniform-measure path of ExactMeasure.region against restrict() + influences(). ----------
@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 10), seed=st.integers(0, 2**32 - 1))
def test_packed_region_matches_restriction(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = (rng.random(2**n) < rng.random()).astype(np.uint8)
    measure = ExactMeasure(table)
    restriction = np.where(rng.random(n) < 0.5, -1, rng.integers(0, 2, n))
    p_reach, mass_one, weighted = measure.region(restriction)
    fixed = {i: int(v) for i, v in enumerate(restriction) if v >= 0}
    sub, free = restrict(table, fixed)
    assert p_reach == 2.0 ** -len(fixed)
    assert np.isclose(mass_one, p_reach * (mean(sub) if free else float(sub[0])))
    expect = np.zeros(n)
    if free:
        expect[free] = p_reach * influences(sub)
    np.testing.assert_allclose(weighted, expect, rtol=0, atol=1e-15)
