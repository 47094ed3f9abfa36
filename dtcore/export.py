"""Text and matplotlib renderings of a fitted estimator of :mod:`dtcore.estimators`.

scikit-learn's ``sklearn.tree.export_text`` and ``plot_tree`` accept only its own trees; these two
read ``TopDownClassifier``, ``ID3Classifier`` and ``OptimalTreeClassifier`` and show the tests in
the original columns' units (``age <= 55``), the class names of ``classes_`` and, at each leaf, the
training class proportions that ``predict_proba`` returns.

Example
-------
>>> from sklearn.datasets import load_iris
>>> from dtcore.estimators import OptimalTreeClassifier
>>> from dtcore.export import export_text
>>> iris = load_iris(as_frame=True)
>>> clf = OptimalTreeClassifier(max_depth=2).fit(iris.data, iris.target_names[iris.target])
>>> print(export_text(clf, decimals=2))
|--- petal length (cm) <= 2.45
|   |--- class: setosa
|--- petal length (cm) >  2.45
|   |--- petal width (cm) <= 1.65
|   |   |--- class: versicolor
|   |--- petal width (cm) >  1.65
|   |   |--- class: virginica
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

__all__ = ["export_text", "plot_tree", "node_labels", "boolean_text"]


def _tests(est: Any, node: int, decimals: int, feature_names: Any = None) -> tuple[str, str]:
    """The (x = 0, x = 1) branch texts of a query node, in the original column's units."""
    b = est.binarizer_
    k = est.boolean_tree_.feature[node]
    name = (b.input_names if feature_names is None else feature_names)[b.columns[k]]
    if b.missing[k]:
        return f"{name} is not missing", f"{name} is missing"
    nan_below = " or missing" if b.columns[k] in b.missing_columns else ""
    if b.passthrough[k]:
        return f"{name} = 0{nan_below}", f"{name} = 1"
    cut = f"{b.cuts[k]:.{decimals}f}"
    return f"{name} <= {cut}{nan_below}", f"{name} >  {cut}"


def _check(est: Any, decimals: int) -> None:
    check_is_fitted(est, "tree_")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}")


def _leaf_text(est: Any, node: int, show_proportions: bool, decimals: int) -> str:
    value = est.tree_value_[node]
    share = value / value.sum()
    text = f"class: {est.classes_[int(np.argmax(share))]}"
    if show_proportions:
        text += " (" + ", ".join(f"{c}: {p:.{decimals}f}" for c, p in zip(est.classes_, share)) + ")"
    return text


def _check_names(est: Any, feature_names: Any) -> list[str] | None:
    if feature_names is None:
        return None
    names = [str(name) for name in feature_names]
    if len(names) != est.n_features_in_ or isinstance(feature_names, str):
        raise ValueError(f"feature_names must list one name per input column ({est.n_features_in_}), "
                         f"got {len(names) if not isinstance(feature_names, str) else 'a string'}")
    return names


def export_text(est: Any, *, decimals: int = 2, show_proportions: bool = False,
                feature_names: Any = None) -> str:
    """The fitted tree as indented text, in the layout of ``sklearn.tree.export_text``.

    Parameters
    ----------
    est : TopDownClassifier, ID3Classifier or OptimalTreeClassifier
        A fitted estimator.
    decimals : int, default=2
        Digits after the point of thresholds and proportions.
    show_proportions : bool, default=False
        Also print every leaf's training class proportions (``predict_proba`` of its samples).
    feature_names : sequence of str, optional
        One name per input column (``n_features_in_``), shown instead of the names seen in ``fit``
        (``feature_names_in_``, else ``x0``, ``x1``, ...): e.g. the names of a ColumnTransformer's
        ``get_feature_names_out()`` when the estimator sits after it in a Pipeline.

    Returns
    -------
    str
        One line per branch: ``|--- name <= cut`` for the x <= cut side, ``|--- name >  cut`` for the
        other, ``|--- class: label`` at a leaf. A missing value goes to the ``<= cut`` side of a
        column that had missing values in training (the line says ``or missing``); see
        :mod:`dtcore.estimators` for the rule at test time.
    """
    _check(est, decimals)
    names = _check_names(est, feature_names)
    tree = est.boolean_tree_
    lines: list[str] = []
    stack: list[tuple] = [("node", 0, 0)]
    while stack:  # one step per node or line, depth-first, the x = 0 branch first
        kind, item, level = stack.pop()
        if kind == "line":
            lines.append("|   " * level + "|--- " + item)
        elif tree.feature[item] < 0:
            lines.append("|   " * level + "|--- " + _leaf_text(est, item, show_proportions, decimals))
        else:
            low, high = _tests(est, item, decimals, names)
            stack += [("node", tree.child1[item], level + 1), ("line", high, level),
                      ("node", tree.child0[item], level + 1), ("line", low, level)]
    return "\n".join(lines)


def boolean_text(est: Any) -> str:
    """The fitted tree over its Boolean features, as :meth:`dtcore.tree.DecisionTree.to_text` prints it
    (``name > cut?``, then the ``0 ->`` and ``1 ->`` branches), each leaf showing the class that
    ``predict`` gives there (``class: label``).

    Parameters
    ----------
    est : TopDownClassifier, ID3Classifier or OptimalTreeClassifier
        A fitted estimator.

    Returns
    -------
    str
    """
    _check(est, 0)
    tree = est.boolean_tree_
    names = est.binarizer_.feature_names
    lines: list[str] = []
    stack: list[tuple[int, str, str]] = [(0, "", "")]
    while stack:  # one step per node, depth-first, the 0 branch first
        node, indent, edge = stack.pop()
        if tree.feature[node] < 0:
            lines.append(f"{indent}{edge}class: {est.classes_[int(np.argmax(est.tree_value_[node]))]}")
            continue
        lines.append(f"{indent}{edge}{names[tree.feature[node]]}?")
        stack += [(tree.child1[node], indent + "  ", "1 -> "), (tree.child0[node], indent + "  ", "0 -> ")]
    return "\n".join(lines)


def node_labels(est: Any, *, decimals: int = 2) -> dict[int, str]:
    """The label :func:`plot_tree` writes in every node.

    Parameters
    ----------
    est : TopDownClassifier, ID3Classifier or OptimalTreeClassifier
        A fitted estimator.
    decimals : int, default=2
        Digits after the point of the thresholds.

    Returns
    -------
    dict of int to str
        Node id -> the test (``name`` / ``<= cut``) at a query node; the class, its training
        proportion and the training weight reaching the node at a leaf.
    """
    _check(est, decimals)
    tree = est.boolean_tree_
    out = {}
    for node in range(tree.node_count):  # one label per node
        if tree.feature[node] >= 0:
            out[node] = _tests(est, node, decimals)[0].replace(" <= ", "\n<= ").replace(" or missing", "\nor missing")
        else:
            value = est.tree_value_[node]
            share = value / value.sum()
            c = int(np.argmax(share))
            out[node] = f"{est.classes_[c]}\n{share[c]:.0%} of {value.sum():.4g}"
    return out


def _overlaps(boxes: list) -> bool:
    if len(boxes) < 2:
        return False
    b = np.array([[x.x0, x.y0, x.x1, x.y1] for x in boxes])
    x_cross = (b[:, None, 0] < b[None, :, 2]) & (b[None, :, 0] < b[:, None, 2])
    y_cross = (b[:, None, 1] < b[None, :, 3]) & (b[None, :, 1] < b[:, None, 3])
    hit = x_cross & y_cross
    np.fill_diagonal(hit, False)
    return bool(hit.any())


def plot_tree(est: Any, ax: Any = None, *, fontsize: float = 9.0, decimals: int = 2,
              min_fontsize: float = 2.0) -> Any:
    """Draw the fitted tree with matplotlib, no two labels overlapping.

    Leaves are spread left to right, each query node above the middle of its children, depth
    downward; the left branch of a query node is its test being true (``yes``), the right one false.
    Query nodes show the test in the original units; leaves show the predicted class, its training
    proportion and the training weight reaching the leaf, coloured by class. After drawing, the
    text boxes are measured with the figure's renderer and the font is shrunk (down to
    ``min_fontsize``) until none overlaps; a new figure is sized from the labels' lengths first.

    Parameters
    ----------
    est : TopDownClassifier, ID3Classifier or OptimalTreeClassifier
        A fitted estimator.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    fontsize : float, default=9
        The largest font size tried.
    decimals : int, default=2
        Digits of the thresholds.
    min_fontsize : float, default=2
        The smallest font size tried.

    Returns
    -------
    matplotlib Axes
    """
    try:
        import matplotlib.pyplot as plt
    except ModuleNotFoundError as error:  # matplotlib is not one of dtcore's three dependencies
        raise ModuleNotFoundError("plot_tree needs matplotlib: pip install 'dtcore[plot]' "
                                  "(or pip install matplotlib)") from error

    labels = node_labels(est, decimals=decimals)
    tree = est.boolean_tree_
    n_leaves, depth = tree.size, tree.depth
    widest = max(max(len(line) for line in text.split("\n")) for text in labels.values())
    if ax is None:
        char_inches = 0.62 * fontsize / 72   # an average character is ~0.6 em wide
        width = min(60.0, max(4.0, n_leaves * (widest + 2) * char_inches))
        _, ax = plt.subplots(figsize=(width, max(2.5, 1.1 * (depth + 1))))
    x: dict[int, float] = {}
    counter = iter(range(n_leaves))

    def place(node: int) -> float:
        if tree.feature[node] < 0:
            x[node] = float(next(counter))
        else:
            x[node] = 0.5 * (place(tree.child0[node]) + place(tree.child1[node]))
        return x[node]

    place(0)
    colours = plt.get_cmap("tab10")
    texts = []
    for node in range(tree.node_count):  # one label (and two edges) per node
        px, py = x[node], -tree.node_depth[node]
        if tree.feature[node] >= 0:
            for child, word in ((tree.child0[node], "yes"), (tree.child1[node], "no")):
                cx, cy = x[child], -tree.node_depth[child]
                ax.plot([px, cx], [py, cy], color="0.6", lw=0.8, zorder=1)
                texts.append(ax.text(px + 0.62 * (cx - px), py + 0.62 * (cy - py), word, color="0.35",
                                     ha="center", va="center", fontsize=fontsize, zorder=2))
            face = "#eef3f8"
        else:
            value = est.tree_value_[node]
            c = int(np.argmax(value))
            rgba = np.array(colours(c % 10))
            face = tuple(1 - (1 - rgba[:3]) * (0.25 + 0.5 * value[c] / value.sum()))
        texts.append(ax.text(px, py, labels[node], ha="center", va="center", fontsize=fontsize, zorder=3,
                             bbox={"boxstyle": "round,pad=0.25", "fc": face, "ec": "0.4", "lw": 0.6}))
    ax.set_xlim(-0.6, n_leaves - 0.4)
    ax.set_ylim(-depth - 0.45, 0.45)
    ax.axis("off")
    figure = ax.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    size = fontsize
    while True:  # shrink the font until no two labels' boxes meet
        boxes = [t.get_bbox_patch().get_window_extent(renderer) if t.get_bbox_patch() is not None
                 else t.get_window_extent(renderer) for t in texts]
        if not _overlaps(boxes) or size <= min_fontsize:
            break
        size = max(min_fontsize, size * 0.85)
        for t in texts:  # one font change per label
            t.set_fontsize(size)
        figure.canvas.draw()
    return ax
