"""Chapter 5's experiments, by result of [BDM20]: Brutzkus, Daniely and Malach, *ID3 learns juntas for
smoothed product distributions* (COLT 2020), book page ``05_id3_smoothed``.

Each module holds a result's experiments, its ``check_*`` functions (the only place the chapter's
verification rows are built), its ``*_glue`` text helpers and its figures. Functions that draw take
``rng`` keyword-only (the page keys it: :func:`dtbook.seeds.experiment_rng`); sweeps take the
chapter ``seed`` and name their stream by ``key`` (:mod:`dtbook.seeds`). The chapter's parameters,
the search budgets included, live in :data:`dtbook.specs.CH5_ID3`.

==================  ==========================================================================================
module              paper result
==================  ==========================================================================================
``distributions``   Sec. 1.2: the (α, c)-distributions and the smoothed ones (the samplers)
``impurities``      Sec. 2.1: the impurities C, their strong concavity β and Lipschitz constant γ
``kearns``          Sec. 1: Kearns' observation (a parity's gains vanish under the uniform distribution)
``lemma9``          Lemma 9, random members and its exhaustive supremum; Sec. 2.1's I
``theorem1``        Theorems 1 and 10: the parity grid and the sample sizes
``lemma4``          Lemma 4 on the runs of Theorems 1 and 2
``lemmas56``        Lemmas 5 and 6: traced runs and exhaustive suprema
``lemma8``          Lemma 8: the path audit; ID3's gain rebuilt from I (Sec. 1.1)
``lemma11``         Lemma 11: covariance quantiles under smoothing
``theorem2``        Theorems 2 and 12: the smoothed-junta grid and the centres
``conjecture3``     Conjecture 3: depth-log n trees
``hardest``         the hardest members of Theorems 1 and 2's classes (local searches)
``common``          helpers shared by several results: problem kinds, zero-error rates, number formats
==================  ==========================================================================================
"""

from . import (common, conjecture3, distributions, hardest, impurities, kearns, lemma4, lemma8, lemma9, lemma11,
               lemmas56, theorem1, theorem2)

__all__ = ["common", "conjecture3", "distributions", "hardest", "impurities", "kearns", "lemma4", "lemma8", "lemma9",
           "lemma11", "lemmas56", "theorem1", "theorem2"]
