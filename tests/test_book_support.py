"""The book's seed rule and figure helper."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dtbook import figures, seeds
from dtbook.sweep import sweep, grid


def test_experiment_streams_depend_on_seed_and_name_only():
    a = seeds.experiment_rng(0, "ch1/osss").random(4)
    assert np.array_equal(a, seeds.experiment_rng(0, "ch1/osss").random(4))
    assert not np.array_equal(a, seeds.experiment_rng(1, "ch1/osss").random(4))
    assert not np.array_equal(a, seeds.experiment_rng(0, "ch1/lemma51").random(4))
    assert seeds.key_number("ch1/osss") == seeds.key_number("ch1/osss") < 2**64


def test_a_keyed_sweep_does_not_shift_when_another_experiment_is_added():
    def task(rng, a):
        return {"u": float(rng.random())}

    first = sweep(task, grid(a=[1, 2]), repetitions=2, seed=5, n_jobs=1, key="ch9/first")
    _ = sweep(task, grid(a=[3]), repetitions=3, seed=5, n_jobs=1, key="ch9/new")
    again = sweep(task, grid(a=[1, 2]), repetitions=2, seed=5, n_jobs=1, key="ch9/first")
    assert first.equals(again)
    other = sweep(task, grid(a=[1, 2]), repetitions=2, seed=5, n_jobs=1, key="ch9/second")
    assert not first["u"].equals(other["u"])


def test_seed_rule_rejects_bad_input():
    with pytest.raises(ValueError, match="name must be a non-empty string"):
        seeds.key_number("")
    with pytest.raises(ValueError, match="seed"):
        seeds.seed_sequence(-1, "x")


def test_figures_have_the_book_width_and_close_after_show():
    fig, axes = figures.figure(2, height=3.0)
    assert fig.get_size_inches()[0] == pytest.approx(figures.WIDTH)
    assert len(axes) == 2
    before = len(plt.get_fignums())
    figures.show(fig, "test_figure")
    assert len(plt.get_fignums()) == before - 1
    assert plt.rcParams["axes.labelsize"] == figures.FONT_SIZE
    with pytest.raises(ValueError, match="height"):
        figures.figure(height=0.1)


@pytest.mark.parametrize("backend, expected", [("module://matplotlib_inline.backend_inline", "inline"), (None, "agg")])
def test_figures_keep_a_kernels_inline_backend_and_draw_off_screen_elsewhere(backend, expected):
    # A Jupyter kernel sets MPLBACKEND to its inline backend, which gives glued figures their PNG.
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    if backend is not None:
        env["MPLBACKEND"] = backend
    code = "import matplotlib; from dtbook import figures; print(matplotlib.get_backend())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert expected in out.stdout.strip().lower()
