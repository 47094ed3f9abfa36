"""Page 7's measure grid and the drawing of witness functions, shared by its sections.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import pandas as pd

from dtcore import exhaustive as ex
from dtcore.cube import ProductDistribution
from ...figures import figure


FIXED_MEASURES: tuple[tuple[float, ...], ...] = (
    (0.5, 0.5, 0.5, 0.5), (0.3, 0.3, 0.3, 0.3), (0.1, 0.1, 0.1, 0.1), (0.05, 0.05, 0.05, 0.05),
    (0.9, 0.9, 0.9, 0.9), (0.95, 0.95, 0.95, 0.95), (0.05, 0.5, 0.5, 0.5), (0.1, 0.5, 0.5, 0.5),
    (0.9, 0.5, 0.5, 0.5), (0.1, 0.3, 0.7, 0.9), (0.05, 0.25, 0.5, 0.75), (0.02, 0.5, 0.5, 0.98),
)
"""The fixed part of the measure grid: p = 1/2, biases <= 0.1 and >= 0.9, asymmetric vectors."""


def measure_grid(*, n_random: int, rng: np.random.Generator, n: int = 4) -> list[ProductDistribution]:
    """The fixed measures plus ``n_random`` draws of p in [0.02, 0.98]^n rounded to two decimals.

    Two decimals keep every p_i an exact decimal fraction, so a violation can be rechecked in
    rational arithmetic from the printed p.
    """
    draws = np.round(rng.uniform(0.02, 0.98, size=(n_random, n)), 2)
    return [ProductDistribution(p) for p in (*FIXED_MEASURES, *draws)]


def witness(atlas_frame: pd.DataFrame, result: str, form: str) -> str:
    """The witness of one atlas row, as the verification table shows it: table, measure and note."""
    r = atlas_frame.set_index(["result", "form"]).loc[(result, form)]
    return f"{r['table']}, μ = {r['measure']} ({r['note']})"


def draw_witnesses(witnesses: Sequence[tuple[str, int]]):
    """A figure with the minimum-size tree of each witness function (title: its label)."""
    fig, axes = figure(len(witnesses), 1, height=2.8)
    axes = np.atleast_1d(axes)
    tables = ex.all_tables(4)
    for ax, (label, f) in zip(axes, witnesses):
        ex.optimal_tree(tables[f]).draw(ax=ax, fontsize=9)
        ax.set_title(label, fontsize=10)
    return fig
