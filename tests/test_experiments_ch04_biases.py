"""Chapter 4 at the biases its spec allows where no run's phase bound bites (issue 39, item 1).

``papermill book/04_product_spaces.ipynb out.ipynb -y "biases: [0.5, 0.2]"`` (also ``[0.3]``) stopped in
``phases_figure`` with "Data cannot be log-scaled because all values are <= 0". Every experiment, figure,
check and glue function of the page that depends on the biases runs here at those biases, at small sizes
(a whole-notebook run would be too slow for the suite).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dtbook import figures
from dtbook.experiments import ch04
from dtbook.report import VerificationTable

EPS = 0.1


def drawn(fig) -> None:
    """Lay the figure out and render it as :func:`dtbook.figures.show` does (this is where log scales fail)."""
    figures.prepare(fig)
    fig.canvas.draw()
    plt.close(fig)


@pytest.mark.parametrize("biases", [[0.5, 0.2], [0.3]])
def test_the_pages_functions_run_where_no_phase_bound_bites(biases):
    table = VerificationTable()
    exact = ch04.exact_lemmas.exact_lemmas(biases=biases, n=5, n_functions=2, seed=0, n_jobs=1)
    drawn(ch04.exact_lemmas.exact_lemmas_figure(exact))
    ch04.exact_lemmas.check_exact_lemmas(table, exact)
    ch04.exact_lemmas.exact_lemma_glue(exact)

    runs = ch04.lemma44.lemma_runs(biases=biases, n=6, eps=EPS, n_functions=4, seed=0, n_jobs=1)
    greedy = runs[runs["rule"] == "greedy"]
    ceiling = 2.0 ** greedy["relevant"] - 1
    assert not any((greedy[bound] < ceiling).any() for _, bound in ch04.theorem11.PHASES)  # the case of the issue
    dictator = ch04.lemma44.dictator_lemma44(biases)
    drawn(ch04.lemma44.lemma44_figure(runs, dictator, EPS))
    ch04.lemma44.check_lemma44(table, runs, dictator, EPS)
    ch04.lemma44.lemma44_glue(runs, EPS)

    drawn(ch04.theorem11.size_figure(runs, EPS))
    ch04.theorem11.check_size(table, runs, EPS, 6)
    ch04.theorem11.size_glue(runs, 6)
    fig = ch04.theorem11.phases_figure(runs, 6)
    assert "nothing to draw" in " ".join(t.get_text() for t in fig.axes[0].texts)
    drawn(fig)
    ch04.theorem11.check_phases(table, runs, 6)
    assert ch04.theorem11.phases_glue(runs, 6)["ch4_l46_bites"] == 0

    paths = ch04.appendix_e.appendix_e_paths(biases=biases, eps=EPS, rng=np.random.default_rng(0), max_queries=8)
    drawn(ch04.appendix_e.appendix_e_figure(paths, EPS))
    deviation = ch04.appendix_e.appendix_e1_deviation(n=5, biases=biases, eps=EPS, rng=np.random.default_rng(1))
    ch04.appendix_e.check_appendix_e(table, paths, deviation)
    ch04.appendix_e.appendix_e_glue(paths)

    bias52 = biases[min(1, len(biases) - 1)]
    convergence, scores = ch04.lemma52.lemma52_estimates(n=5, bias=bias52, repetitions=4, rng=np.random.default_rng(2),
                                                         pair_counts=(500, 4000))
    drawn(ch04.lemma52.lemma52_figure(convergence, scores, 4))
    ch04.lemma52.lemma52_glue(convergence, bias52)

    fig2 = ch04.figure2.figure2_runs(biases=biases, n=5, eps_grid=[0.3], dims=[3], delta=0.1, reps=1, seed=0, n_jobs=1)
    drawn(ch04.figure2.figure2_figure(fig2, 5))
    drawn(ch04.figure2.labels_figure(fig2, 5))
    ch04.figure2.figure2_glue(fig2, [0.3], 0.1)
    ch04.figure2.figure2_growth_glue(fig2)
    variants = ch04.figure2.label_variants(n=6, biases=[biases[0], biases[-1]], eps=0.3, delta=0.1,
                                           rng=np.random.default_rng(3))
    ch04.figure2.label_variant_glue(variants)
    assert len(table.rows) > 0
