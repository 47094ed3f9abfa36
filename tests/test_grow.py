import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtcore.audit import replay
from dtcore import analysis
from dtcore.cube import ProductDistribution, truth_table
from dtcore.functions import address, parity, random_tree
from dtcore.buildtopdown import build_top_down_dt
from dtcore.grow import Frontier, select_best


def test_multiplexer_splits_address_bits_first_and_is_exact():
    f = truth_table(lambda X: address(X, 2), 6)
    run = build_top_down_dt(f, eps=0.01)
    assert sorted(run.trace["feature"].iloc[:3].tolist()[:1] + [run.trace["feature"].iloc[1]]) == [0, 1]
    assert run.tree.size == 8
    assert np.array_equal(run.tree.truth_table(), f)


def test_parity_needs_the_full_tree():
    f = truth_table(lambda X: parity(X, [1, 3, 4]), 6)
    # any leaf that leaves a parity variable free has error 1/2: at 7 leaves the error is 1/8 > 0.1
    run = build_top_down_dt(f, eps=0.1)
    assert run.tree.size == 8 and run.trace["error"].iloc[-1] == 0


def test_eps_out_of_range():
    f = np.array([0, 1, 1, 0], dtype=np.uint8)
    for bad in (0.0, 0.5, 0.7, -1):
        with pytest.raises(ValueError, match=r"eps must be in \(0, 0.5\)"):
            build_top_down_dt(f, eps=bad)
    with pytest.raises(ValueError, match="power of two"):
        build_top_down_dt(np.array([0, 1, 1]), eps=0.1)


def test_max_leaves_and_custom_selector():
    rng = np.random.default_rng(0)
    f = (rng.random(2**8) < 0.5).astype(np.uint8)
    assert build_top_down_dt(f, eps=0.01, size=5).tree.size == 5

    def worst_leaf(frontier: Frontier):
        s = frontier.scores
        ok = np.flatnonzero(np.isfinite(s))
        return int(ok[np.argmin(s[ok])]) if ok.size else None

    greedy = build_top_down_dt(f, eps=0.2)
    contrary = build_top_down_dt(f, eps=0.2, select=worst_leaf)
    assert contrary.tree.size >= greedy.tree.size


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 9), eps=st.floats(0.01, 0.45), product=st.booleans())
def test_run_invariants(seed, n, eps, product):
    rng = np.random.default_rng(seed)
    f = random_tree(n, int(rng.integers(1, min(2**n, 40) + 1)), rng=rng).truth_table()
    dist = ProductDistribution(rng.uniform(0.1, 0.9, size=n)) if product else None
    kind = "rerandomised" if product else "flip"
    run = build_top_down_dt(f, eps=eps, dist=dist, kind=kind)
    tr = run.trace
    # the returned tree is the f-completion, its error is what the trace says and at most eps
    err = analysis.completion_error(run.tree, f, dist)
    assert err == pytest.approx(tr["error"].iloc[-1], abs=1e-12) and err <= eps + 1e-12
    assert analysis.cost(run.tree, f, dist, kind) == pytest.approx(tr["cost"].iloc[-1], abs=1e-9)
    # Lemma 5.1 along the run: each cost drop equals the score of the split; error <= cost
    splits = tr[tr["feature"] >= 0]
    assert np.allclose(-np.diff(tr["cost"].to_numpy())[: len(splits)], splits["score"], atol=1e-9)
    assert (tr["error"] <= tr["cost"] + 1e-12).all()
    assert run.tree.size == len(splits) + 1


def test_greedy_picks_the_highest_score():
    rng = np.random.default_rng(3)
    f = (rng.random(2**7) < 0.3).astype(np.uint8)
    run = build_top_down_dt(f, eps=0.01, size=6)
    # recompute every leaf's best score from scratch at one step and compare with the chosen one
    partial = build_top_down_dt(f, eps=0.01, size=4)
    stats = analysis.leaf_statistics(partial.tree, f)
    assert run.trace["score"].iloc[3] == pytest.approx(stats["weighted_influence"].max())


def test_select_best_on_empty_frontier():
    from dtcore.tree import DecisionTree

    assert select_best(Frontier(DecisionTree(2))) is None


def test_returned_tree_is_eps_close_and_minimal_on_the_decoy_family():
    from dtcore.functions import decoy_selector_parity
    f = truth_table(lambda X: decoy_selector_parity(X, 2, 2), 10)
    for eps in (0.1, 0.05):
        run = build_top_down_dt(f, eps=eps)
        assert np.mean(run.tree.truth_table() != f) <= eps          # measured on every point
        steps = replay.replay(run.tree, run.trace, f)
        assert steps["error"].iloc[-2] > eps                       # one split fewer is not enough
        root_block = {5, 6}                                         # the level-2 decoys come first
        assert run.tree.feature[0] in root_block


# --- the batched BuildTopDownDT (uniform measure) is grow() with InfluenceScorer, exactly ---------
def _grown_one_leaf_at_a_time(table, eps, kind, size):
    from dtcore.buildtopdown import InfluenceScorer
    from dtcore.grow import grow

    scorer = InfluenceScorer(table, None, kind)
    return grow(scorer, stop=lambda fr: scorer.total_error <= eps, n=scorer.measure.n, size=size,
                select=select_best, observe=lambda fr: {"cost": scorer.total_cost, "error": scorer.total_error})


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(8, 11), shape=st.sampled_from(["tree", "noisy", "majority"]),
       kind=st.sampled_from(["flip", "rerandomised"]), eps=st.sampled_from([1e-12, 0.01, 0.1]),
       size=st.integers(1, 200), inword=st.sampled_from(["least influential", "most influential"]))
def test_batched_growth_is_the_one_leaf_at_a_time_growth(seed, n, shape, kind, eps, size, inword):
    """Same tree and the same trace (every float bit for bit) as grow() with InfluenceScorer, also
    when the in-word variables are the most influential ones (most leaves then leave the word map
    and are counted one at a time by ExactMeasure.region)."""
    import importlib
    import pandas as pd
    from dtcore.functions import majority

    module = importlib.import_module("dtcore.buildtopdown")
    rng = np.random.default_rng(seed)
    if shape == "tree":
        f = random_tree(n, int(rng.integers(2, 60)), rng=rng).truth_table()
    elif shape == "noisy":
        f = random_tree(n, 12, rng=rng).truth_table() ^ (rng.random(2**n) < 0.05).astype(np.uint8)
    else:
        f = truth_table(majority, n)
    saved = module._inword_variables
    try:
        if inword == "most influential":
            module._inword_variables = lambda influence: np.argsort(-influence, kind="stable")[:6]
        fast = build_top_down_dt(f, eps=eps, kind=kind, size=size)
    finally:
        module._inword_variables = saved
    slow = _grown_one_leaf_at_a_time(f, eps, kind, size)
    a, b = fast.tree, slow.tree
    assert (a.feature, a.child0, a.child1, a.value) == (b.feature, b.child0, b.child1, b.value)
    pd.testing.assert_frame_equal(fast.trace, slow.trace, check_exact=True)
