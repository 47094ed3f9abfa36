"""Decision trees over {0,1}^n: query nodes, stochastic nodes and leaves.

A query node reads x_i and goes to ``child0`` or ``child1``; a stochastic node (Blanc–Lange–Tan
ICALP 2021) goes to ``child1`` with probability ``branch_prob`` regardless of x; a leaf holds
``value`` = Pr[label = 1] (0 or 1 for an ordinary leaf). Trees are grown in place by
:meth:`DecisionTree.split`; every query and routing operation is vectorised over samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .validate import check_binary_matrix, check_int, check_real, check_rng
from .cube import ProductDistribution, cube_chunks, resolve_distribution

LEAF = -1
STOCHASTIC = -2
_FREE = 0xFF                     # a free variable's byte in a stored restriction (int8 -1)
# stored restriction byte -> :func:`restriction_key` byte (value + 1)
_KEY_OF_BYTE = bytes([1, 2] + [0] * 254)


class DecisionTree:
    """A binary decision tree on n Boolean variables, node 0 being the root."""

    def __init__(self, n: int, value: float = 0.0) -> None:
        self.n = check_int("n", n, 1)
        self.feature: list[int] = [LEAF]
        self.child0: list[int] = [-1]
        self.child1: list[int] = [-1]
        self.value: list[float] = [check_real("value", value, 0.0, 1.0, low_open=False, high_open=False)]
        self.branch_prob: list[float] = [0.0]
        self.node_depth: list[int] = [0]
        # each node's restriction as the bytes of an int8 vector (0xFF free, else the value): an
        # immutable copy per node costs a tenth of an array's, and growth loops split per node;
        # from_arrays stores read-only views of rows of one buffer instead (no second copy at peak)
        self._restriction: list[bytes | memoryview] = [bytes(np.full(self.n, -1, dtype=np.int8))]
        self._feature_names: list[str] | None = None

    # --- construction -------------------------------------------------------------------
    def _check_leaf(self, node: int) -> int:
        node = check_int("node", node, 0, len(self.feature) - 1)
        if self.feature[node] != LEAF:
            raise ValueError(f"node must be a leaf, node {node} is internal")
        return node

    def _add_child(self, parent: int, restriction: bytes) -> int:
        self.feature.append(LEAF)
        self.child0.append(-1)
        self.child1.append(-1)
        self.value.append(self.value[parent])
        self.branch_prob.append(0.0)
        self.node_depth.append(self.node_depth[parent] + 1)
        self._restriction.append(restriction)
        return len(self.feature) - 1

    def split(self, node: int, feature: int, values: tuple[float, float] | None = None) -> tuple[int, int]:
        """Replace leaf ``node`` by a query of x_feature; return the (x=0, x=1) child leaves.

        ``values`` sets the children's values (as :meth:`set_value` would); by default they keep
        the parent's."""
        node = self._check_leaf(node)
        feature = check_int("feature", feature, 0, self.n - 1)
        parent_r = self._restriction[node]
        if parent_r[feature] != _FREE:
            raise ValueError(f"feature x_{feature} is already queried on the path to node {node}")
        if values is None:
            v0 = v1 = self.value[node]
        else:
            v0 = check_real("value", values[0], 0.0, 1.0, low_open=False, high_open=False)
            v1 = check_real("value", values[1], 0.0, 1.0, low_open=False, high_open=False)
        r0, r1 = bytearray(parent_r), bytearray(parent_r)
        r0[feature], r1[feature] = 0, 1
        # the two children's rows of every node list at once (growth loops call this per split)
        c0 = len(self.feature)
        depth = self.node_depth[node] + 1
        self.feature += (LEAF, LEAF)
        self.child0 += (-1, -1)
        self.child1 += (-1, -1)
        self.value += (v0, v1)
        self.branch_prob += (0.0, 0.0)
        self.node_depth += (depth, depth)
        self._restriction += (bytes(r0), bytes(r1))
        self.feature[node], self.child0[node], self.child1[node] = feature, c0, c0 + 1
        return c0, c0 + 1

    def split_stochastic(self, node: int, branch_prob: float) -> tuple[int, int]:
        """Replace leaf ``node`` by a coin: child1 with probability ``branch_prob``, else child0."""
        node = self._check_leaf(node)
        q = check_real("branch_prob", branch_prob, 0.0, 1.0, low_open=False, high_open=False)
        r = self._restriction[node]
        c0, c1 = self._add_child(node, r), self._add_child(node, r)
        self.feature[node], self.child0[node], self.child1[node] = STOCHASTIC, c0, c1
        self.branch_prob[node] = q
        return c0, c1

    def set_value(self, node: int, value: float) -> None:
        """Set a leaf's Pr[label = 1] (0/1 for a deterministic leaf)."""
        node = self._check_leaf(node)
        self.value[node] = check_real("value", value, 0.0, 1.0, low_open=False, high_open=False)

    def copy(self) -> "DecisionTree":
        """A deep copy."""
        out = DecisionTree.__new__(DecisionTree)
        out.n = self.n
        for name in ("feature", "child0", "child1", "value", "branch_prob", "node_depth"):
            setattr(out, name, list(getattr(self, name)))
        out._restriction = list(self._restriction)
        out._feature_names = None if self.feature_names is None else list(self.feature_names)
        return out

    @classmethod
    def from_arrays(cls, n: int, feature: np.ndarray, child0: np.ndarray, child1: np.ndarray,
                    value: np.ndarray) -> "DecisionTree":
        """A deterministic tree from its node arrays: the tree :meth:`split` calls would build.

        ``feature[v]`` is the variable node v queries (-1 for a leaf), ``child0[v]``/``child1[v]`` its
        x = 0 / x = 1 children (-1 for a leaf), ``value[v]`` its value; node 0 is the root and every
        child has a larger id than its parent. For learners that grow many nodes at once (ID3 level
        by level): one NumPy pass per level instead of one :meth:`split` call per node.
        """
        tree = cls(n)
        feature, child0, child1 = (np.asarray(a, dtype=np.int64).reshape(-1) for a in (feature, child0, child1))
        value = np.asarray(value, dtype=np.float64).reshape(-1)
        size = feature.size
        if size == 0 or not (child0.size == child1.size == value.size == size):
            raise ValueError(f"feature, child0, child1 and value must have one entry per node, got sizes "
                             f"{feature.size}, {child0.size}, {child1.size}, {value.size}")
        if ((feature < LEAF) | (feature >= tree.n)).any():
            raise ValueError(f"feature must hold -1 (leaf) or variables in [0, {tree.n - 1}]")
        internal = feature >= 0
        ids = np.flatnonzero(internal)
        kids = np.concatenate([child0[ids], child1[ids]])
        if ((child0[~internal] != -1).any() or (child1[~internal] != -1).any()
                or not np.array_equal(np.sort(kids), np.arange(1, size)) or (kids <= np.tile(ids, 2)).any()):
            raise ValueError("child0/child1 must give every node but the root one parent with a smaller id")
        if ((value < 0.0) | (value > 1.0)).any():
            raise ValueError("value must lie in [0, 1]")
        restriction = np.full((size, tree.n), -1, dtype=np.int8)
        depth = np.zeros(size, dtype=np.int64)
        level = np.zeros(1, dtype=np.int64)
        while level.size:  # one NumPy pass per tree level
            parents = level[internal[level]]
            f = feature[parents]
            if (restriction[parents, f] >= 0).any():
                raise ValueError("feature must not be queried twice on a path")
            for child, bit in ((child0[parents], 0), (child1[parents], 1)):
                restriction[child] = restriction[parents]
                restriction[child, f] = bit
                depth[child] = depth[parents] + 1
            level = np.concatenate([child0[parents], child1[parents]])
        tree.feature, tree.child0, tree.child1 = feature.tolist(), child0.tolist(), child1.tolist()
        tree.value, tree.branch_prob = value.tolist(), [0.0] * size
        tree.node_depth = depth.tolist()
        # read-only row views of the one buffer: a bytes copy per node would double the peak memory
        # of a wide tree (ID3 on thousands of binarised columns)
        flat = memoryview(restriction.view(np.uint8).reshape(-1)).toreadonly()
        width = tree.n
        tree._restriction = [flat[i * width:(i + 1) * width] for i in range(size)]
        return tree

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_restriction"] = [bytes(r) for r in self._restriction]   # a memoryview does not pickle
        return state

    # --- structure ----------------------------------------------------------------------
    @property
    def node_count(self) -> int:
        """Number of nodes of every kind."""
        return len(self.feature)

    @property
    def has_stochastic_nodes(self) -> bool:
        """True when some internal node is a coin flip."""
        return STOCHASTIC in self.feature

    @property
    def is_deterministic(self) -> bool:
        """No stochastic nodes and every leaf value 0 or 1."""
        return not self.has_stochastic_nodes and all(
            v in (0.0, 1.0) for f, v in zip(self.feature, self.value) if f == LEAF
        )

    def leaves(self) -> list[int]:
        """Leaf node ids in creation order."""
        return [i for i, f in enumerate(self.feature) if f == LEAF]

    @property
    def size(self) -> int:
        """Number of leaves (the papers' size s)."""
        return self.feature.count(LEAF)

    @property
    def depth(self) -> int:
        """Length of the longest root-to-leaf path."""
        return max(self.node_depth[i] for i in self.leaves())

    def restriction(self, node: int) -> np.ndarray:
        """A copy of the node's restriction: length-n int8, -1 for a free variable, else its 0/1 value."""
        node = check_int("node", node, 0, len(self.feature) - 1)
        return np.frombuffer(self._restriction[node], dtype=np.int8).copy()

    def restriction_key(self, node: int) -> bytes:
        """A hashable key of the node's restriction (equal keys <=> equal restrictions)."""
        node = check_int("node", node, 0, len(self.feature) - 1)
        return bytes(self._restriction[node]).translate(_KEY_OF_BYTE)

    def relabel_features(self, perm: np.ndarray | list[int]) -> "DecisionTree":
        """A copy in which variable ``perm[i]`` plays the role of variable ``i`` of this tree.

        The new tree queries ``perm[feature]`` wherever this one queries ``feature``, so
        ``new(x) = self(x[perm])`` for every point x.
        """
        perm = np.asarray(perm, dtype=np.int64)
        if perm.shape != (self.n,) or not np.array_equal(np.sort(perm), np.arange(self.n)):
            raise ValueError(f"perm must be a permutation of range({self.n}), got {perm.tolist()}")
        out = self.copy()
        out.feature = [int(perm[f]) if f >= 0 else f for f in self.feature]
        inverse = np.argsort(perm)
        out._restriction = [np.frombuffer(r, dtype=np.int8)[inverse].tobytes() for r in self._restriction]
        if self.feature_names is not None:
            out.feature_names = [self.feature_names[i] for i in inverse]
        return out

    def leaf_restrictions(self) -> np.ndarray:
        """(L, n) int8: for each leaf, -1 for a free variable, 0/1 for one fixed on its path."""
        joined = b"".join([self._restriction[i] for i in self.leaves()])
        return np.frombuffer(joined, dtype=np.int8).reshape(-1, self.n).copy()

    def leaf_depths(self) -> np.ndarray:
        """Depth of each leaf, in :meth:`leaves` order."""
        return np.array([self.node_depth[i] for i in self.leaves()], dtype=np.int64)

    def leaf_values(self) -> np.ndarray:
        """Pr[label = 1] at each leaf, in :meth:`leaves` order."""
        return np.array([self.value[i] for i in self.leaves()], dtype=np.float64)

    def leaf_probabilities(self, dist: ProductDistribution | None = None) -> np.ndarray:
        """Pr[x reaches leaf l] under ``dist`` (stochastic nodes contribute their coin)."""
        dist = resolve_distribution(dist, self.n)
        prob = np.zeros(self.node_count)
        prob[0] = 1.0
        for node in range(self.node_count):  # parents precede children
            f = self.feature[node]
            if f == LEAF:
                continue
            q = dist.p[f] if f >= 0 else self.branch_prob[node]
            prob[self.child0[node]] = prob[node] * (1.0 - q)
            prob[self.child1[node]] = prob[node] * q
        return prob[self.leaves()]

    def average_depth(self, dist: ProductDistribution | None = None) -> float:
        """Delta(T) = E_x[depth of the leaf x reaches] (Moakhar et al. 2026, Sec. 2)."""
        return float(self.leaf_probabilities(dist) @ self.leaf_depths())

    # --- evaluation ---------------------------------------------------------------------
    def _route(self, X: np.ndarray, *, rng: np.random.Generator | None) -> np.ndarray:
        """Leaf node reached by each row; stochastic nodes flip coins with ``rng``."""
        feature = np.array(self.feature)
        child0, child1 = np.array(self.child0), np.array(self.child1)
        branch = np.array(self.branch_prob)
        at = np.zeros(X.shape[0], dtype=np.int64)
        active = np.flatnonzero(feature[at] != LEAF)
        while active.size:  # one pass per tree level
            nodes = at[active]
            f = feature[nodes]
            go_right = np.empty(active.size, dtype=bool)
            query = f >= 0
            go_right[query] = X[active[query], f[query]] == 1
            if (~query).any():
                go_right[~query] = rng.random(int((~query).sum())) < branch[nodes[~query]]
            at[active] = np.where(go_right, child1[nodes], child0[nodes])
            active = active[feature[at[active]] != LEAF]
        return at

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf node id reached by each row of X (deterministic routing only)."""
        X = check_binary_matrix("X", X, self.n)
        if self.has_stochastic_nodes:
            raise ValueError("apply needs a tree without stochastic nodes; use predict with an rng")
        return self._route(X, rng=None)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """mu_T(x) = Pr[T(x) = 1] for every row, exactly (averaging over coins and leaf values)."""
        X = check_binary_matrix("X", X, self.n)
        out = np.zeros(X.shape[0])
        stack: list[tuple[int, np.ndarray, np.ndarray]] = [
            (0, np.arange(X.shape[0]), np.ones(X.shape[0]))
        ]
        while stack:  # one NumPy step per node
            node, rows, weight = stack.pop()
            f = self.feature[node]
            if f == LEAF:
                out[rows] += weight * self.value[node]
            elif f == STOCHASTIC:
                q = self.branch_prob[node]
                stack.append((self.child0[node], rows, weight * (1.0 - q)))
                stack.append((self.child1[node], rows, weight * q))
            else:
                right = X[rows, f] == 1
                stack.append((self.child0[node], rows[~right], weight[~right]))
                stack.append((self.child1[node], rows[right], weight[right]))
        return out

    def predict(self, X: np.ndarray, *, rng: np.random.Generator | None = None) -> np.ndarray:
        """Labels T(x) in {0,1}; a tree with coins or fractional leaves needs ``rng`` to draw them."""
        X = check_binary_matrix("X", X, self.n)
        if self.is_deterministic:
            return np.array(self.value, dtype=np.uint8)[self._route(X, rng=None)]
        if rng is None:
            raise ValueError("rng must be a numpy.random.Generator for a stochastic tree, got None")
        rng = check_rng(rng)
        leaf = self._route(X, rng=rng)
        return (rng.random(X.shape[0]) < np.array(self.value)[leaf]).astype(np.uint8)

    def truth_table(self) -> np.ndarray:
        """The 2^n truth table of a deterministic tree."""
        if not self.is_deterministic:
            raise ValueError("truth_table needs a deterministic tree; use predict_proba for mu_T")
        out = np.empty(2**self.n, dtype=np.uint8)
        for part, X in cube_chunks(self.n):  # chunks of the cube: memory is one chunk, not 2^n points
            out[part] = self.predict(X)
        return out

    # --- rendering ----------------------------------------------------------------------
    @property
    def feature_names(self) -> list[str] | None:
        """Optional names of the n variables, used when the tree is printed or drawn (None: x0, x1, ...)."""
        return getattr(self, "_feature_names", None)

    @feature_names.setter
    def feature_names(self, names: list[str] | None) -> None:
        if names is not None:
            names = [str(v) for v in names]
            if len(names) != self.n:
                raise ValueError(f"feature_names must hold n = {self.n} names, got {len(names)}")
        self._feature_names = names

    def _names(self, feature_names: list[str] | None, default: str) -> list[str]:
        if feature_names is not None:
            if len(feature_names) != self.n:
                raise ValueError(f"feature_names must hold n = {self.n} names, got {len(feature_names)}")
            return [str(v) for v in feature_names]
        if self.feature_names is not None:
            return self.feature_names
        return [default.format(i) for i in range(self.n)]

    def to_text(self, feature_names: list[str] | None = None) -> str:
        """An indented text rendering, one node per line (``print(tree)`` shows it).

        A query node reads ``name?`` and is followed by its ``0 ->`` and ``1 ->`` subtrees; a leaf
        shows its label (or ``Pr[1]`` for a fractional leaf). Names come from ``feature_names``,
        else from the tree's :attr:`feature_names`, else ``x0, x1, ...``.

        Examples
        --------
        >>> from dtcore import DecisionTree
        >>> tree = DecisionTree(3)
        >>> left, right = tree.split(0, 2)
        >>> tree.set_value(right, 1)
        >>> print(tree)
        x2?
          0 -> leaf: 0
          1 -> leaf: 1
        >>> tree.feature_names = ["age", "income", "smoker"]
        >>> print(tree.to_text())
        smoker?
          0 -> leaf: 0
          1 -> leaf: 1
        """
        names = self._names(feature_names, "x{}")
        lines: list[str] = []

        def walk(node: int, indent: str, edge: str) -> None:
            f = self.feature[node]
            if f == LEAF:
                v = self.value[node]
                label = f"{int(v)}" if v in (0.0, 1.0) else f"Pr[1]={v:.3g}"
                lines.append(f"{indent}{edge}leaf: {label}")
                return
            head = f"{names[f]}?" if f >= 0 else f"coin(q={self.branch_prob[node]:.3g})?"
            lines.append(f"{indent}{edge}{head}")
            walk(self.child0[node], indent + "  ", "0 -> ")
            walk(self.child1[node], indent + "  ", "1 -> ")

        walk(0, "", "")
        return "\n".join(lines)

    def draw(self, ax: Any = None, feature_names: list[str] | None = None,
             highlight: dict[int, str] | None = None, fontsize: float = 9) -> Any:
        """Draw the tree with matplotlib: leaves spread left to right, depth downward.

        ``highlight`` maps node ids to face colours (e.g. to show the order of splits).
        """
        import matplotlib.pyplot as plt

        names = self._names(feature_names, "$x_{{{}}}$")
        if ax is None:
            _, ax = plt.subplots(figsize=(max(4, 0.7 * self.size), 0.9 * (self.depth + 1) + 0.5))
        xpos: dict[int, float] = {}
        counter = iter(range(self.node_count))

        def place(node: int) -> float:
            if self.feature[node] == LEAF:
                xpos[node] = float(next(counter))
            else:
                xpos[node] = 0.5 * (place(self.child0[node]) + place(self.child1[node]))
            return xpos[node]

        place(0)
        highlight = highlight or {}
        for node, f in enumerate(self.feature):
            x, y = xpos[node], -self.node_depth[node]
            if f != LEAF:
                for child, lab in ((self.child0[node], "0"), (self.child1[node], "1")):
                    cx, cy = xpos[child], -self.node_depth[child]
                    ax.plot([x, cx], [y, cy], color="0.5", lw=1, zorder=1)
                    ax.text((x + cx) / 2, (y + cy) / 2, lab, fontsize=fontsize - 2, color="0.35",
                            ha="center", va="center", backgroundcolor="white", zorder=2)
                text = names[f] if f >= 0 else f"coin {self.branch_prob[node]:.2g}"
                face = highlight.get(node, "#dbe9f6")
                box = "round,pad=0.3"
            else:
                v = self.value[node]
                text = f"{int(v)}" if v in (0.0, 1.0) else f"{v:.2f}"
                face = highlight.get(node, "#fde0c5" if v >= 0.5 else "#e8e8e8")
                box = "square,pad=0.3"
            ax.text(x, y, text, ha="center", va="center", fontsize=fontsize, zorder=3,
                    bbox={"boxstyle": box, "fc": face, "ec": "0.3"})
        ax.set_xlim(-0.7, self.size - 0.3)
        ax.set_ylim(-self.depth - 0.6, 0.6)
        ax.axis("off")
        return ax

    def __repr__(self) -> str:
        return f"DecisionTree(n={self.n}, size={self.size}, depth={self.depth})"

    def __str__(self) -> str:
        return self.to_text()


def restriction_key(restriction: np.ndarray) -> bytes:
    """The hashable key of a restriction vector (-1/0/1 per variable), shared by every module."""
    return (np.asarray(restriction) + 1).astype(np.uint8).tobytes()


def tree_disagreement(tree: DecisionTree, target: DecisionTree,
                      dist: ProductDistribution | None = None) -> float:
    """Pr_{x ~ dist}[tree(x) != target(x)] exactly, for two deterministic trees.

    Two leaves' regions intersect unless some coordinate is fixed differently; the intersection's
    mass is the product of Pr[x_i = b] over coordinates fixed by either leaf. Both the conflict
    test and the log-mass are matrix products of the leaves' 0/1 restriction indicators, so the
    cost is (#leaves of tree) x (#leaves of target) x n in BLAS, with no loop over points.
    Used as L_D(T) of BDM 2020 (zero loss = 0.0 up to rounding).
    """
    if not isinstance(tree, DecisionTree) or not isinstance(target, DecisionTree):
        raise ValueError("tree and target must be DecisionTree objects")
    if tree.n != target.n:
        raise ValueError(f"target must have n = {tree.n} variables like tree, got {target.n}")
    if not (tree.is_deterministic and target.is_deterministic):
        raise ValueError("tree and target must be deterministic trees")
    dist = resolve_distribution(dist, tree.n)
    lp1, lp0 = np.log(dist.p), np.log1p(-dist.p)
    Ra, Rb = tree.leaf_restrictions(), target.leaf_restrictions()
    va, vb = tree.leaf_values(), target.leaf_values()
    B1, B0 = (Rb == 1).astype(np.float64), (Rb == 0).astype(np.float64)
    total = 0.0
    step = max(1, 2**22 // max(1, Rb.shape[0]))
    for s in range(0, Ra.shape[0], step):  # chunks of leaves, each a few matrix products
        A1 = (Ra[s:s + step] == 1).astype(np.float64)
        A0 = (Ra[s:s + step] == 0).astype(np.float64)
        conflict = A1 @ B0.T + A0 @ B1.T
        logmass = ((A1 @ lp1 + A0 @ lp0)[:, None] + (B1 @ lp1 + B0 @ lp0)[None, :]
                   - (A1 * lp1) @ B1.T - (A0 * lp0) @ B0.T)
        differ = va[s:s + step, None] != vb[None, :]
        total += float(np.exp(logmass)[(conflict == 0) & differ].sum())
    return total
