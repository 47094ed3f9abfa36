"""TopDown_G and MiniBatchTopDown_G (BGLT 2020): unit tests, the scikit-learn cross-check,
a brute-force reference (Kearns–Mansour has no scikit-learn counterpart), hypothesis properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from dtcore.cube import all_points
from dtcore.impurity import get_impurity
from dtcore.grow import grow
from dtcore.topdown import TopDownScorer, depth_cap, local_gains, minibatch_top_down, random_order, top_down
from dtcore.audit.compare import split_sequence, splits_differing, tree_from_sklearn


def noisy_data(seed: int, m: int = 5000, n: int = 10):
    rng = np.random.default_rng(seed)
    X = (rng.random((m, n)) < rng.uniform(0.3, 0.7, n)).astype(np.uint8)
    w = rng.normal(size=n)
    y = ((X @ w + rng.normal(size=m)) > np.median(X @ w)).astype(np.uint8)
    return X, y


def near_ties(X, y, res, impurity, rtol=1e-9):
    """Whether any split of ``res`` had a runner-up (another variable of the same leaf, or another
    leaf of the frontier) within rtol of the winner: there scikit-learn's random feature order or
    float rounding may legitimately choose differently."""
    G = get_impurity(impurity)
    m = len(y)
    frontier = {0: np.ones(m, dtype=bool)}
    best = {}

    def leaf_best(mask):
        n, pos = mask.sum(), y[mask].sum()
        if pos in (0, n):
            return [-np.inf, -np.inf]
        g = local_gains(G, n, pos, X[mask].sum(0), X[mask & (y == 1)].sum(0), "empirical") * n / m
        return sorted(g)[-2:]

    best[0] = leaf_best(frontier[0])
    tree = res.tree
    for _, row in res.trace.iterrows():
        if row.feature < 0:
            break
        node = int(row.node)
        top = max(v[1] for v in best.values())
        others = [v[1] for k, v in best.items() if k != node] + [best[node][0]]
        if max(others) >= top - rtol * abs(top):
            return True
        mask = frontier.pop(node)
        del best[node]
        f = int(row.feature)
        for child, val in ((tree.child0[node], 0), (tree.child1[node], 1)):
            frontier[child] = mask & (X[:, f] == val)
            best[child] = leaf_best(frontier[child])
    return False


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_same_splits_in_same_order_as_sklearn(criterion):
    compared = 0
    for seed in range(12):
        X, y = noisy_data(seed)
        res = top_down(X, y, size=24, impurity=criterion)
        if near_ties(X, y, res, criterion):
            continue  # honest skip: the order is not determined by the criterion alone
        clf = DecisionTreeClassifier(criterion=criterion, max_leaf_nodes=24, max_features=None,
                                     min_impurity_decrease=0.0, random_state=seed).fit(X, y)
        assert split_sequence(res.tree) == split_sequence(tree_from_sklearn(clf))
        assert splits_differing(res.tree, tree_from_sklearn(clf)) == 0
        # completion: round(p) = 1[p >= 1/2] vs scikit-learn's argmax (class 0 on an exact tie)
        proba = clf.predict_proba(X)[:, 1]
        ours = res.tree.predict(X)
        np.testing.assert_array_equal(ours[proba != 0.5], clf.predict(X)[proba != 0.5])
        assert (ours[proba == 0.5] == 1).all()
        compared += 1
    assert compared >= 10, f"only {compared} of 12 data sets were tie-free"


def brute_force_top_down(X, y, t, impurity, weighting="empirical"):
    """Reference: recompute every (leaf, variable) purity gain from boolean masks, no counting
    tricks; ties to the earliest leaf, then the lowest variable."""
    G = get_impurity(impurity)
    m, n = X.shape
    leaves = [(np.ones(m, dtype=bool), 0, ())]
    seq = []
    while len(leaves) < t:
        best = (-np.inf, None, None)
        for k, (mask, depth, path) in enumerate(leaves):
            yl = y[mask]
            if yl.size == 0 or yl.min() == yl.max():
                continue
            for i in range(n):
                if i in [p[0] for p in path]:
                    continue
                left, right = mask & (X[:, i] == 0), mask & (X[:, i] == 1)
                if not left.any() or not right.any():
                    continue
                nl, nr, nt = left.sum(), right.sum(), mask.sum()
                if weighting == "empirical":
                    w, wl, wr = nt / m, nl / nt, nr / nt
                else:
                    w, wl, wr = 2.0**-depth, 0.5, 0.5
                gain = w * (G(yl.mean()) - wl * G(y[left].mean()) - wr * G(y[right].mean()))
                if gain > best[0] + 1e-12:
                    best = (gain, k, i)
        if best[1] is None:
            break
        mask, depth, path = leaves.pop(best[1])
        i = best[2]
        seq.append((tuple(sorted(path)), i))
        leaves += [(mask & (X[:, i] == v), depth + 1, path + ((i, v),)) for v in (0, 1)]
    return seq


def as_paths(res):
    out = []
    for r, f in split_sequence(res.tree):
        r = np.frombuffer(r, dtype=np.uint8).astype(np.int8) - 1  # restriction_key stores r + 1
        out.append((tuple((int(i), int(r[i])) for i in np.flatnonzero(r >= 0)), f))
    return out


@pytest.mark.parametrize("impurity", ["kearns_mansour", "gini", "entropy"])
@pytest.mark.parametrize("weighting", ["empirical", "uniform"])
def test_against_brute_force(impurity, weighting):
    agree = 0
    for seed in range(4):
        X, y = noisy_data(100 + seed, m=400, n=7)
        res = top_down(X, y, size=16, impurity=impurity, weighting=weighting)
        ref = brute_force_top_down(X, y, 16, impurity, weighting)
        if as_paths(res) == ref:
            agree += 1
    assert agree >= 3


def test_against_brute_force_scores():
    # scores of the chosen splits equal the brute-force purity gains of those splits
    X, y = noisy_data(7, m=300, n=6)
    G = get_impurity("kearns_mansour")
    res = top_down(X, y, size=12, impurity="kearns_mansour")
    tree = res.tree
    for _, row in res.trace.iterrows():
        if row.feature < 0:
            break
        r = tree.restriction(int(row.node))
        mask = np.all((X == r) | (r < 0), axis=1)
        f = int(row.feature)
        yl, l, rr = y[mask], mask & (X[:, f] == 0), mask & (X[:, f] == 1)
        gain = mask.mean() * (G(yl.mean()) - l.sum() / mask.sum() * G(y[l].mean())
                              - rr.sum() / mask.sum() * G(y[rr].mean()))
        assert row.score == pytest.approx(gain, rel=1e-12, abs=1e-15)


def test_local_gains_known_values():
    G = get_impurity("gini")
    # 4 points, 2 positive; x_0 separates perfectly, x_1 is independent of y
    g = local_gains(G, 4, 2, np.array([2, 2, 4]), np.array([2, 1, 2]), "empirical")
    assert g[0] == pytest.approx(1.0) and g[1] == pytest.approx(0.0) and g[2] == -np.inf
    gu = local_gains(G, 4, 2, np.array([1, 2]), np.array([1, 1]), "uniform")
    # x_0: side 1 has 1 point (mu=1), side 0 has 3 points (mu=1/3): 1 - (1/2)(0) - (1/2)(8/9)
    assert gu[0] == pytest.approx(1 - 0.5 * 8 / 9)


def test_depth_cap():
    assert [depth_cap(t) for t in (1, 2, 4, 16, 256)] == [0, 1, 3, 6, 11]
    with pytest.raises(ValueError, match="t must be"):
        depth_cap(0)


def test_top_down_learns_a_dictator_and_completes_by_majority():
    X = all_points(5)
    y = X[:, 3].copy()
    res = top_down(X, y, size=4, impurity="entropy")
    assert res.tree.size == 2  # both leaves pure: nothing more to split
    assert res.tree.feature[0] == 3
    np.testing.assert_array_equal(res.tree.predict(X), y)


def test_top_down_size_and_bad_parameters():
    X, y = noisy_data(3)
    assert top_down(X, y, size=17).tree.size == 17
    with pytest.raises(ValueError, match="size must be"):
        top_down(X, y, size=0)
    with pytest.raises(ValueError, match="weighting"):
        top_down(X, y, size=4, weighting="bayes")
    with pytest.raises(ValueError, match="impurity"):
        top_down(X, y, size=4, impurity="error")
    with pytest.raises(ValueError, match="y must have length"):
        top_down(X, y[:-1], size=4)


def final_leaves(X, y, t, impurity="gini"):
    """Grow TopDown_G with the scorer exposed; return (scorer, tree, [(node, SampleLeaf)])."""
    scorer = TopDownScorer(X, y, impurity)
    seen = {}
    res = grow(scorer, stop=lambda fr: False, n=scorer.n, size=t,
               observe=lambda fr: seen.update(last=list(zip(fr.nodes, fr.states))) or {})
    return scorer, res, seen["last"]


@pytest.mark.parametrize("chunk", [1, 3, 64, None])
def test_leaf_blocks_and_chunked_counts_are_exact(monkeypatch, chunk):
    """Every leaf's block of the index array is exactly the rows the tree routes to it (in
    ascending order), and its chunked counts equal direct counts, for any chunk size."""
    if chunk is not None:
        monkeypatch.setattr(TopDownScorer, "chunk_rows", chunk)
    X, y = noisy_data(5, m=700, n=9)
    scorer, res, leaves = final_leaves(X, y, 12, "entropy")
    reach = res.tree.apply(X)
    assert res.tree.size == 12 and len(leaves) == 12
    for node, st_ in leaves:
        rows = scorer.index[st_.start:st_.end]
        np.testing.assert_array_equal(rows, np.flatnonzero(reach == node))
        np.testing.assert_array_equal(st_.n1, X[rows].sum(axis=0))
        np.testing.assert_array_equal(st_.p1, y[rows].astype(np.int64) @ X[rows])
        assert st_.pos == y[rows].sum()
    np.testing.assert_array_equal(np.sort(scorer.index), np.arange(len(y)))
    assert split_sequence(res.tree) == split_sequence(top_down(X, y, size=12, impurity="entropy").tree)


def test_chunk_size_does_not_change_the_tree(monkeypatch):
    X, y = noisy_data(8, m=3000, n=12)
    ref = top_down(X, y, size=40, impurity="gini")
    monkeypatch.setattr(TopDownScorer, "chunk_rows", 5)
    other = top_down(X, y, size=40, impurity="gini")
    assert split_sequence(other.tree) == split_sequence(ref.tree)
    np.testing.assert_array_equal(other.trace["score"], ref.trace["score"])


def test_top_down_leaves_its_input_alone_and_accepts_bool():
    X, y = noisy_data(9, m=2000, n=8)
    X0, y0 = X.copy(), y.copy()
    res = top_down(X, y, size=20)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    assert split_sequence(top_down(X.astype(bool), y.astype(bool), size=20).tree) == split_sequence(res.tree)
    assert split_sequence(top_down(np.asfortranarray(X), y.astype(np.int64), size=20).tree) == split_sequence(res.tree)


def test_top_down_peak_memory_below_input_size():
    """No full-size copy of X (uint8 or float): the extra memory is the index array (8 bytes a
    row) plus chunk buffers, under the input's 65 bytes a row at n = 64 (the old version's
    float32 copy alone was 4x the input)."""
    import tracemalloc

    rng = np.random.default_rng(1)
    m, n = 2**18, 64
    X = (rng.random((m, n), dtype=np.float32) < 0.5).astype(np.uint8)
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(m) < 0.1)).astype(np.uint8)
    tracemalloc.start()
    try:
        res = top_down(X, y, size=32)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert res.tree.size == 32
    assert peak < 0.75 * (X.nbytes + y.nbytes), peak / (X.nbytes + y.nbytes)


def test_full_cube_weightings_agree_and_fact_2_1():
    """On the whole cube (each point once) the empirical and uniform weightings coincide, and the
    G-impurity sum_l 2^-|l| G(E[f_l]) drops by exactly each split's purity gain (Fact 2.1)."""
    rng = np.random.default_rng(0)
    X = all_points(8)
    y = ((X @ rng.normal(size=8)) > 0).astype(np.uint8)
    G = get_impurity("entropy")
    a = top_down(X, y, size=20, impurity="entropy", weighting="empirical")
    b = top_down(X, y, size=20, impurity="entropy", weighting="uniform")
    np.testing.assert_allclose(a.trace["score"], b.trace["score"], rtol=1e-12)
    tree = a.tree
    # replay: impurity before/after
    from dtcore.tree import DecisionTree
    replay = DecisionTree(8)
    leaves = {0: np.ones(len(y), dtype=bool)}

    def imp(masks):
        return sum(mk.mean() * float(G(y[mk].mean())) for mk in masks.values())

    for _, row in a.trace.iterrows():
        if row.feature < 0:
            break
        before = imp(leaves)
        mask = leaves.pop(int(row.node))
        f = int(row.feature)
        leaves[tree.child0[int(row.node)]] = mask & (X[:, f] == 0)
        leaves[tree.child1[int(row.node)]] = mask & (X[:, f] == 1)
        assert before - imp(leaves) == pytest.approx(row.score, rel=1e-9, abs=1e-14)
    del replay


def test_minibatch_with_everything_in_the_batch_is_uniform_top_down():
    X, y = noisy_data(5, m=2000, n=8)
    rng = np.random.default_rng(1)
    full = top_down(X, y, size=12, impurity="gini", weighting="uniform")
    mb = minibatch_top_down(X, y, size=12, batch_size=len(y), rng=rng, depth=8)
    np.testing.assert_allclose(mb.trace["score"].to_numpy()[:-1], full.trace["score"].to_numpy()[:-1],
                               rtol=1e-12)
    np.testing.assert_array_equal(mb.tree.predict(X), full.tree.predict(X))


def test_minibatch_depth_cap_and_determinism():
    X, y = noisy_data(9, m=5000, n=12)
    r1 = minibatch_top_down(X, y, size=64, batch_size=20, impurity="entropy", rng=np.random.default_rng(4))
    r2 = minibatch_top_down(X, y, size=64, batch_size=20, impurity="entropy", rng=np.random.default_rng(4))
    assert r1.tree.depth <= depth_cap(64) + 1
    assert r1.trace["depth"].max() <= depth_cap(64)
    np.testing.assert_array_equal(r1.tree.leaf_restrictions(), r2.tree.leaf_restrictions())
    np.testing.assert_array_equal(r1.tree.leaf_values(), r2.tree.leaf_values())


def test_minibatch_uses_only_batch_labels():
    X, y = noisy_data(2, m=3000, n=10)
    asked = []

    def oracle(rows):
        asked.append(np.asarray(rows))
        return y[rows]

    b = 15
    res = minibatch_top_down(X, oracle, size=16, batch_size=b, rng=np.random.default_rng(0))
    assert all(a.size <= b for a in asked)
    assert np.unique(np.concatenate(asked)).size <= b * res.tree.node_count


def test_minibatch_bad_parameters():
    X, y = noisy_data(1, m=100, n=4)
    with pytest.raises(ValueError, match="batch_size must be"):
        minibatch_top_down(X, y, size=4, batch_size=0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="size must be"):
        minibatch_top_down(X, y, size=0, batch_size=4, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        minibatch_top_down(X, y, size=4, batch_size=4)
    with pytest.raises(ValueError, match="order"):
        minibatch_top_down(X, y, size=4, batch_size=4, order=np.zeros(100, dtype=int))
    with pytest.raises(ValueError, match="rng"):
        random_order(5, rng=None)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), t=st.integers(1, 20),
       impurity=st.sampled_from(["gini", "entropy", "kearns_mansour"]))
def test_empirical_impurity_drops_by_the_score(seed, t, impurity):
    """sum_l Pr_S[l] G(E_S[y | l]) decreases by exactly the score of every split (the empirical
    form of Fact 2.1), and the completion is the majority label of every leaf."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(20, 200)), int(rng.integers(2, 7))
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    y = (rng.random(m) < rng.random()).astype(np.uint8)
    G = get_impurity(impurity)
    res = top_down(X, y, size=t, impurity=impurity)
    assert res.tree.size <= t
    leaf = res.tree.apply(X)
    total = 0.0
    for node in res.tree.leaves():
        mk = leaf == node
        total += mk.mean() * float(G(y[mk].mean()))
        assert res.tree.value[node] == float(2 * y[mk].sum() >= mk.sum())
    drop = float(G(y.mean())) - total
    assert drop == pytest.approx(res.trace["score"].dropna().sum(), abs=1e-9)


def test_tree_from_sklearn_reproduces_predictions_and_order():
    X, y = noisy_data(3, m=2000, n=8)
    clf = DecisionTreeClassifier(max_leaf_nodes=12, random_state=0).fit(X, y)
    tree = tree_from_sklearn(clf)
    assert tree.size == clf.get_n_leaves() and tree.depth == clf.get_depth()
    np.testing.assert_array_equal(tree.predict(X), clf.predict(X))
    # the k-th split made by scikit-learn's best-first builder is the k-th in the sequence
    seq = split_sequence(tree)
    assert seq[0] == (tree.restriction_key(0), int(clf.tree_.feature[0]))
    assert len(seq) == tree.size - 1


def test_tree_from_sklearn_rejects_non_trees_and_real_features():
    with pytest.raises(ValueError, match="clf"):
        tree_from_sklearn(object())
    rng = np.random.default_rng(0)
    clf = DecisionTreeClassifier(max_leaf_nodes=4).fit(rng.normal(size=(50, 3)) * 5, rng.integers(0, 2, 50))
    with pytest.raises(ValueError, match="clf"):
        tree_from_sklearn(clf)


def test_splits_differing_counts_changed_and_missing_steps():
    X, y = noisy_data(5, m=1000, n=6)
    a, b = top_down(X, y, size=8).tree, top_down(X, y, size=6).tree
    assert splits_differing(a, a) == 0
    assert splits_differing(a, b) == 2


def test_exact_purity_gains_against_direct_counts():
    from dtcore.audit.oracles import exact_purity_gains
    rng = np.random.default_rng(3)
    n = 6
    table = (rng.random(2**n) < 0.4).astype(np.uint8)
    X = all_points(n)
    G = get_impurity("entropy")
    r = np.array([-1, 1, -1, -1, 0, -1], dtype=np.int8)
    inside = np.all((X == r) | (r < 0), axis=1)
    mu = table[inside].mean()
    term, err, gains = exact_purity_gains(table, r, "entropy")
    assert term == pytest.approx(G(mu) / 4) and err == pytest.approx(min(mu, 1 - mu) / 4)
    for i in range(n):
        if r[i] >= 0:
            assert gains[i] == -np.inf
            continue
        m0, m1 = table[inside & (X[:, i] == 0)].mean(), table[inside & (X[:, i] == 1)].mean()
        assert gains[i] == pytest.approx((G(mu) - G(m0) / 2 - G(m1) / 2) / 4, abs=1e-15)
    with pytest.raises(ValueError, match="restriction"):
        exact_purity_gains(table, r[:3])
