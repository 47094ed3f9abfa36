"""The exact-solver benchmarks (performance appendix) and chapter 6's exact-beside-cuts table."""

from __future__ import annotations

import numpy as np
import pytest

from dtcore.book.experiments.performance_exact import exact_vs_contree, find_vs_dl85, find_vs_gosdt, real_data
from dtcore.book.experiments.performance.users import ROW_COLUMNS, boolean_tree_data
from dtcore.book.experiments.real_exact import exact_beside_cuts


def test_exact_vs_contree_row_agrees():
    pytest.importorskip("pycontree")
    X, y = real_data("make_classification", rows=300, features=6)
    row = exact_vs_contree(X, y, depth=2, workload="test", repetitions=1)
    assert list(row.columns) == list(ROW_COLUMNS)
    assert row["same_result"].tolist() == ["yes"] and row["ratio"].iloc[0] > 0


@pytest.mark.parametrize("bench", [find_vs_dl85, find_vs_gosdt])
def test_boolean_peers_agree(bench):
    pytest.importorskip("pydl85" if bench is find_vs_dl85 else "gosdt")
    X, y = boolean_tree_data(rows=200, features=6, depth=2, noise=0.1, rng=np.random.default_rng(0))
    row = bench(X, y, depth=2, workload="test", repetitions=1)
    assert row["same_result"].tolist() == ["yes"]


def test_real_data_names_and_refuses_unknown():
    X, y = real_data("wine")
    assert X.shape == (178, 13) and set(y) == {0, 1, 2}
    with pytest.raises(ValueError, match="dataset"):
        real_data("iris")


def test_exact_beside_cuts_never_costs_less_on_training():
    data = {"wine": real_data("wine"), "mc": real_data("make_classification", rows=200, features=5)}
    table = exact_beside_cuts(data, depths=[1, 2], cuts=4, rng=np.random.default_rng(0))
    assert len(table) == 4
    assert (table["cuts_cost"] >= -1e-12).all()
    again = exact_beside_cuts(data, depths=[1, 2], cuts=4, rng=np.random.default_rng(0))
    assert table.drop(columns=[c for c in table if c.endswith("fit s")]).equals(
        again.drop(columns=[c for c in again if c.endswith("fit s")]))
