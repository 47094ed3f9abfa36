"""A paper's blueprint: its ledger entries as a dependency graph, drawn as an SVG in pure Python.

In the manner of the Lean blueprints (leanblueprint, verso-blueprint): a node per definition, lemma
and theorem, an arrow from each result a proof uses to the result that uses it, nodes coloured by
the book's verdict and linked to the statement's box. A node whose proof rests on a refuted or
untestable entry gets a dashed outline.

The layout is a small layered (Sugiyama-style) drawing: each node sits one layer below the deepest
result it uses (definitions and results that use nothing at the top), the order within a layer comes
from a few barycentre sweeps, and arrows are cubic curves from the bottom of a node to the top of the
next. No Graphviz: the book builds on a machine that has only Python.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from . import VERDICT_COLOURS, VERDICT_TEXT, VERDICTS, Entry, resting_on

NODE_HEIGHT = 34
LAYER_GAP = 46
NODE_GAP = 14
CHAR_WIDTH = 6.6  # of the 11.5 px sans-serif label, a little generous so labels never clip
PADDING = 12
FONT = "font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; font-size: 11.5px"


@dataclass
class Node:
    entry: Entry
    layer: int
    order: float = 0.0
    x: float = 0.0
    width: float = 0.0

    external: bool = False

    @property
    def label(self) -> str:
        return self.entry.id if self.external else self.entry.number


def _layers(items: Sequence[Entry]) -> dict[str, int]:
    ids = {e.id for e in items}
    uses = {e.id: [u for u in (*e.uses, *([e.variant_of] if e.variant_of else [])) if u in ids] for e in items}
    layer: dict[str, int] = {}

    def depth(node: str) -> int:
        if node not in layer:
            layer[node] = 1 + max((depth(u) for u in uses[node]), default=-1)
        return layer[node]

    for e in items:
        depth(e.id)
    return layer


def with_external(items: Sequence[Entry], every: Mapping[str, Entry]) -> list[Entry]:
    """``items`` and, before them, the entries of other papers that their proofs use."""
    own = {e.id for e in items}
    external = [every[u] for u in dict.fromkeys(u for e in items for u in e.uses) if u not in own and u in every]
    return [*external, *items]


def layout(items: Sequence[Entry], *, sweeps: int = 8,
           external: frozenset[str] = frozenset()) -> tuple[dict[str, Node], float, float]:
    """Positions of the nodes: (nodes by id, width, height) of the drawing."""
    layer_of = _layers(items)
    nodes = {e.id: Node(e, layer_of[e.id], external=e.id in external) for e in items}
    layers: dict[int, list[Node]] = {}
    for n in nodes.values():
        layers.setdefault(n.layer, []).append(n)
    for members in layers.values():
        for i, n in enumerate(members):
            n.order = float(i)
    edges = [(u, e.id) for e in items for u in (*e.uses, *([e.variant_of] if e.variant_of else [])) if u in nodes]
    up = {n: [u for u, v in edges if v == n] for n in nodes}
    down = {n: [v for u, v in edges if u == n] for n in nodes}
    depth_count = max(layers) + 1 if layers else 0
    for sweep in range(sweeps):
        forward = sweep % 2 == 0
        for level in (range(1, depth_count) if forward else range(depth_count - 2, -1, -1)):
            members = layers.get(level, [])
            for n in members:
                neighbours = up[n.entry.id] if forward else down[n.entry.id]
                if neighbours:
                    n.order = sum(nodes[m].order for m in neighbours) / len(neighbours)
            members.sort(key=lambda n: n.order)
            for i, n in enumerate(members):
                n.order = float(i)
    width = 0.0
    for level, members in layers.items():
        x = PADDING
        for n in members:
            n.width = max(60.0, CHAR_WIDTH * len(n.label) + 20)
            n.x = x
            x += n.width + NODE_GAP
        width = max(width, x - NODE_GAP + PADDING)
    for members in layers.values():  # centre each layer
        used = members[-1].x + members[-1].width - members[0].x if members else 0.0
        shift = (width - 2 * PADDING - used) / 2
        for n in members:
            n.x += shift
    height = depth_count * (NODE_HEIGHT + LAYER_GAP) - LAYER_GAP + 2 * PADDING
    return nodes, width, height


def _y(layer: int) -> float:
    return PADDING + layer * (NODE_HEIGHT + LAYER_GAP)


def _text_colour(fill: str) -> str:
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#FFFFFF"


def svg(items: Sequence[Entry], *, href: Callable[[Entry], str], title: Callable[[Entry], str],
        svg_id: str = "", external: frozenset[str] = frozenset()) -> str:
    """The blueprint of ``items`` as an inline SVG; ``href(entry)`` is each node's link,
    ``title(entry)`` its tooltip (verdict line); ids in ``external`` (another paper's results that
    these proofs use) are drawn with their full citation and a double outline."""
    nodes, width, height = layout(items, external=external)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="blueprint" role="img" '
           f'{f"id={chr(34)}{html.escape(svg_id)}{chr(34)} " if svg_id else ""}'
           f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
           f'style="max-width: 100%; height: auto; {FONT}">',
           '<defs><marker id="bp-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>']
    for e in items:
        v = nodes[e.id]
        for u in e.uses:
            if u not in nodes:
                continue
            a = nodes[u]
            x1, y1 = a.x + a.width / 2, _y(a.layer) + NODE_HEIGHT
            x2, y2 = v.x + v.width / 2, _y(v.layer)
            mid = (y1 + y2) / 2
            out.append(f'<path class="bp-edge" d="M {x1:.1f} {y1:.1f} C {x1:.1f} {mid:.1f}, {x2:.1f} {mid:.1f}, '
                       f'{x2:.1f} {y2 - 2:.1f}" fill="none" stroke="#555" stroke-width="1.1" '
                       'marker-end="url(#bp-arrow)"/>')
        if e.variant_of and e.variant_of in nodes:
            a = nodes[e.variant_of]
            out.append(f'<path class="bp-variant" d="M {a.x + a.width / 2:.1f} {_y(a.layer) + NODE_HEIGHT:.1f} '
                       f'L {v.x + v.width / 2:.1f} {_y(v.layer):.1f}" stroke="#555" stroke-dasharray="2 3" '
                       'fill="none"/>')
    for e in items:
        n = nodes[e.id]
        fill = VERDICT_COLOURS[e.verdict]
        rests = e.is_claim and bool(resting_on(e.id))
        stroke = "#D55E00" if rests else "#333333"
        dash = ' stroke-dasharray="5 3"' if rests else ""
        link = html.escape(href(e), quote=True)
        if n.external:
            out.append(f'<rect x="{n.x - 3:.1f}" y="{_y(n.layer) - 3:.1f}" width="{n.width + 6:.1f}" '
                       f'height="{NODE_HEIGHT + 6}" rx="8" fill="none" stroke="#333333" stroke-width="0.8"/>')
        out.append(f'<a class="bp-node" style="text-decoration: none" href="{link}" data-entry="{html.escape(e.id, quote=True)}" '
                   f'data-verdict="{html.escape(e.verdict)}">'
                   f'<title>{html.escape(title(e))}</title>'
                   f'<rect x="{n.x:.1f}" y="{_y(n.layer):.1f}" width="{n.width:.1f}" height="{NODE_HEIGHT}" rx="6" '
                   f'fill="{fill}" stroke="{stroke}" stroke-width="{2.2 if rests else 1.2}"{dash}/>'
                   f'<text x="{n.x + n.width / 2:.1f}" y="{_y(n.layer) + NODE_HEIGHT / 2 + 4:.1f}" '
                   f'text-anchor="middle" fill="{_text_colour(fill)}" style="text-decoration: none">{html.escape(n.label)}</text></a>')
    out.append("</svg>")
    return "".join(out)


def legend_html(used: Sequence[str] = VERDICTS) -> str:
    """The key of the colours (only the verdicts that occur), and of the dashed outline."""
    chips = []
    for verdict in VERDICTS:
        if verdict not in used:
            continue
        fill = VERDICT_COLOURS[verdict]
        chips.append(f'<span class="bp-key"><span class="bp-chip" style="background:{fill}; border:1px solid #333; '
                     f'display:inline-block; width:0.9em; height:0.9em; border-radius:3px; vertical-align:-0.1em">'
                     f'</span> {html.escape(VERDICT_TEXT[verdict])}</span>')
    chips.append('<span class="bp-key"><span style="display:inline-block; width:1.6em; height:0.8em; '
                 'border:2px dashed #D55E00; border-radius:3px; vertical-align:-0.1em"></span> '
                 'proof rests on a refuted or untestable result</span>')
    chips.append('<span class="bp-key">double outline: another paper\'s result</span>')
    chips.append('<span class="bp-key">arrow: from a result to the results whose proofs use it</span>')
    return ('<p class="bp-legend" style="display:flex; flex-wrap:wrap; gap:0.4em 1.2em; font-size:0.9em">'
            + "".join(chips) + "</p>")


def counts(items: Sequence[Entry]) -> Mapping[str, int]:
    out = {v: 0 for v in VERDICTS}
    for e in items:
        out[e.verdict] += 1
    return out

