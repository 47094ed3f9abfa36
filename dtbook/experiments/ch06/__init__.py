"""Chapter 6's experiments (book/06_real_data.ipynb): the papers' learners through scikit-learn's
interface, on real data sets that ship inside installed packages.

Which paper result lives in which module:

* :mod:`.common`: the data sets (breast cancer, digits, flchain, wine, diabetes, whas500), the
  cross-validation folds and the tables' display, shared by every section;
* :mod:`.blt21_lemma31`: [BLT21] Lemma 3.1, FIND's tree has the least training error of any depth-d
  tree: FIND against pystreed, ID3 and CART on the same Boolean features;
* :mod:`.bglt20_topdown`: [BGLT20] Sec. 1.1, TopDown_G against scikit-learn's best-first tree of the
  same size, and the accuracy frontier of sizes and depths;
* :mod:`.bglt20_est`: [BGLT20] Theorems 2 and 3 and Lemma D.1, Est choosing the size t on flchain from
  a few labels, and cross-validation at Est's label budget;
* :mod:`.estimators`: the estimators as a practitioner uses them (several classes, probabilities,
  missing values, feature importances against scikit-learn's, a drawing);
* :mod:`.users`: what the estimators' users rely on, every fold: the cuts against NumPy's weighted
  quantiles, missing values against the docstring's routing, multi-class FIND against pystreed,
  probabilities and importances against scikit-learn's tree;
* :mod:`.against_sklearn`: the estimators against scikit-learn's tree on a large synthetic problem.

Every random choice is keyed by the chapter seed and a stable name (:mod:`dtbook.seeds`): the
folds by ``"ch06/folds"``, CART's tie-breaking by its experiment's name, Est's split of flchain and
its shared draws by ``"ch06/est"``.
"""
