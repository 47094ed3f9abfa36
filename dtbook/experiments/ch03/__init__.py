"""Chapter 3's experiments: stochastic decision trees under nasty noise ([BLT21], Blanc–Lange–Tan 2021).

One module per result of the paper, each holding the result's experiment, its check (``check_*``: the only
place the page's verification rows are built), its figure and its text helper (``*_glue``):

- :mod:`.facts`: Sec. 1.3, the chapter's target (Figure 1), the mean function μ_T, Facts 1.1 and 1.2 on random trees.
- :mod:`.suprema`: Facts 1.1, 1.2 and Lemma 2.1 at their exhaustive suprema over every small stochastic tree.
- :mod:`.lemma_2_1`: Lemma 2.1 (Sec. 2), the stochastic-leaf approximation by stacked copies.
- :mod:`.lemma_3_1`: Lemma 3.1 (Sec. 3, Figure 2), FIND against brute force and pystreed, and the benchmark.
- :mod:`.lemma_3_2`: Lemma 3.2, FIND's running time.
- :mod:`.table_1`: Table 1 and Theorems 1, 3, 4 under nasty noise (Definition 2), Lemmas 4.2, 5.2, 5.4 and the
  Fact 4.3 chains.
- :mod:`.table_1_exponents`: Table 1's noise terms, the exponent of each learner's excess in η.
- :mod:`.theorem_4`: Theorem 4's L2 guarantee at the sample size where Lemma 5.2's ε falls below 0.1.
- :mod:`.corollary_4_1`: Corollary 4.1 and Lemma 4.2, the depth FIND needs.
- :mod:`.theorems_1_3`: Theorems 1 and 3 at the hardest member found by a search.
- :mod:`.lower_bound`: Sec. 1.1, the indistinguishable pair (the 2η minimum), its rows' power.
- :mod:`.fact_4_3`: Fact 4.3 as printed (strict <) refuted at m = 2, every hypothesis checked in fractions.
- :mod:`.proposition_5_1`: Proposition 5.1, the cut tree's degree and disagreement.
- :mod:`.printed_bounds`: every bound a counted row uses, written afresh from the paper's printed formulas.
- :mod:`.common`: chapter-wide helpers (the learners' names, the theorem-or-observation rule, the worst-root tree,
  timing, styling).

Every counted theorem row names its power (``fails_under``): the same quantity at a worse output of the same type,
computed in the same run (issue 35).

Randomness follows the book's rule (:mod:`dtbook.seeds`): each experiment draws from its own stream keyed
by the chapter seed and a stable name ("ch03/<experiment>"). Functions that draw once take that generator
(``rng``, keyword-only); functions that need one stream per repetition take ``seed`` and spawn the
repetitions' streams from their key (:func:`dtbook.seeds.experiment_streams`); none takes both.
"""
