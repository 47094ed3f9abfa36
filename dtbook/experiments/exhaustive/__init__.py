"""Page 7's experiments (book/07_every_function.ipynb): every statement the page evaluates, over every
function on n <= 4 variables.

Which result lives in which module:

* :mod:`.common`: the measure grid, the witness of an atlas row and the drawing of witness trees;
* :mod:`.atlas`: the supremum of measured / bound of each statement of [BLT20], [MGBH26], [BDM20] and
  OSSS over every function and measure (:func:`dtcore.audit.worst_case.first_violations` rechecks each
  violation exactly), the spectral identity and the cost-drop identities ([MGBH26] Lemma 4.3, [BLT20]
  Lemma 5.1(1));
* :mod:`.exact_recheck`: a second exact computation of every confirmed violation, from the truth table,
  sharing no code with :func:`dtcore.audit.worst_case.exact_lemma_ratio`;
* :mod:`.bounds_twice`: every bound a counted row uses, by :mod:`dtcore.bounds` and by the printed formula;
* :mod:`.appendix_e`: [MGBH26] Lemmas E.1 (with equality on its class) and E.2;
* :mod:`.stochastic`: [BLT21] Facts 1.1 and 1.2 and Lemma 2.1, and [BDM20] Lemma 11;
* :mod:`.heuristics`: [BLT20] Theorem 3 and the greedy heuristics (BuildTopDownDT, TopDown_G, ID3)
  against the minimum size, and the local searches past n = 4 with their guard at n = 4.
"""
