"""Chapter 4: the printed hypotheses of [MGBH26] Lemma C.1 and Lemma 4.4 checked at a witness in exact arithmetic."""

from fractions import Fraction

from dtbook.experiments.ch04 import witnesses


def test_the_dictator_refutes_printed_c1_with_every_hypothesis_met() -> None:
    frame = witnesses.c1_printed_hypotheses("00ff", "(0.5, 0.5, 0.5, 0.5)")
    assert frame["holds"].all() and frame["ratio"].dropna().iloc[0] == 2


def test_a_constant_function_has_no_variance_no_influence_and_depth_zero() -> None:
    f = witnesses._bits("ffff", 4)
    mass, ones, infs = witnesses.subcube_statistics(f, [Fraction(1, 2)] * 4)
    assert mass == ones == 1 and max(infs) == 0 and witnesses.least_average_depth(f, [Fraction(1, 2)] * 4) == 0


def test_printed_lemma44_at_the_dictator_and_its_exact_pieces() -> None:
    frame = witnesses.l44_printed_hypotheses("00ff", "uniform", leaves=1)
    assert frame["holds"].all()
    assert frame["ratio"].dropna().iloc[0] == Fraction(999, 500)  # 2ε/Δ over the score 1/2 at ε = 0.999/2


def test_rerandomisation_influence_of_a_biased_dictator() -> None:
    p = [Fraction(1, 10)] + [Fraction(1, 2)] * 3
    f = witnesses._bits("aaaa", 4)  # f = x0
    _, _, infs = witnesses.subcube_statistics(f, p)
    assert infs[0] == 2 * Fraction(1, 10) * Fraction(9, 10) and infs[1:] == [0, 0, 0]
    assert witnesses.greedy_frontier(f, p, 2) == [((0, 0),), ((0, 1),)]


def test_runs_for_power_matches_the_binomial_count() -> None:
    from scipy.stats import binom

    from dtbook.experiments.ch04 import selection

    n = selection.runs_for_power(0.1, 0.05)
    assert binom.sf(binom.ppf(0.99, n, 0.05), n, 0.1) >= 0.8 > binom.sf(binom.ppf(0.99, n - 1, 0.05), n - 1, 0.1)
