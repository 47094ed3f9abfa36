"""The book's one figure style and the one way a chapter shows a figure.

Every figure is :data:`WIDTH` inches wide and handed to the page through :func:`show`, which
lays it out, glues it under a name for a numbered ``{glue:figure}`` and closes it. Call
:func:`use_book_style` once per chapter (the experiments modules do it on import of this module).

**The font scale.** The rendered page (sphinx-book-theme, 1,280-px window) gives a figure a
content column of :data:`COLUMN_PX` = 672 CSS pixels, and the browser shrinks every image to that
width. A figure :data:`WIDTH` = 7 inches wide is 7 x 96 = 672 CSS pixels at its nominal size, so
the scale is :data:`PAGE_SCALE` = 672 / 672 = 1.0: a label of *F* points in the figure reads as
*F* points on the page. Labels are :data:`FONT_SIZE` = 11 pt, ticks and legends 10 pt, and
:func:`show` raises any smaller text (an annotation, a legend given ``fontsize=8``) to
:data:`MIN_FONT_SIZE` = 9 pt / :data:`PAGE_SCALE`, so that no text of a figure reads below 9 pt
at page width. (On a 420-px phone the column is about 380 px and everything shrinks by 0.57.)

:func:`show` also makes every figure follow the same rules without edits in the chapters:

- the figure is :data:`WIDTH` wide (a chapter's own ``figsize`` keeps its height only);
- log axes get plain numbers when their range is small (0.05, 0.1, 0.2; 2000, 5000, 10000) and
  powers of ten otherwise, never "4×10⁰"; symmetric-log axes the same with a sign (−10, 0, 10,
  not −10⁰); minor ticks are unlabelled; linear axes never use an offset ("+1e3") or a multiplier;
- tick labels never collide: when two neighbouring labels overlap, the axis gets fewer ticks
  (and, for fixed ticks, slanted labels) until they do not;
- a legend placed outside the axes on the right (which squeezes the plot and widens the image)
  moves below its axes.

:func:`legend` and :func:`legend_below` place a legend inside the free area of one axes or in a
row below all of them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import matplotlib

# A Jupyter kernel sets MPLBACKEND to its inline backend, which renders the glued figures as PNG;
# switching it to Agg would glue figures without an image. Elsewhere (tests, scripts) draw off-screen.
if "MPLBACKEND" not in os.environ:
    matplotlib.use("Agg", force=False)

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.text import Text  # noqa: E402

#: Width of every figure, inches.
WIDTH = 7.0
#: Width of the page's content column in CSS pixels (sphinx-book-theme 1.3 at a 1,280-px window),
#: measured in headless Chromium; the browser shrinks every figure to it.
COLUMN_PX = 672.0
#: CSS pixels per inch.
CSS_PX_PER_INCH = 96.0
#: How much a figure's text is scaled on the page: 672 / (7 x 96) = 1.0.
PAGE_SCALE = COLUMN_PX / (WIDTH * CSS_PX_PER_INCH)
#: The smallest text a reader gets at page width, points.
MIN_PAGE_POINTS = 9.0
#: The smallest font size in a figure, points: 9 pt on the page after the scale.
MIN_FONT_SIZE = MIN_PAGE_POINTS / PAGE_SCALE
#: Font size of titles and axis labels, points (11 pt at page width).
FONT_SIZE = 11.0
#: Font size of tick labels and legends, points.
SMALL_FONT_SIZE = 10.0

_RC = {"font.size": FONT_SIZE, "axes.titlesize": FONT_SIZE, "axes.labelsize": FONT_SIZE,
       "legend.fontsize": SMALL_FONT_SIZE, "legend.title_fontsize": SMALL_FONT_SIZE,
       "xtick.labelsize": SMALL_FONT_SIZE, "ytick.labelsize": SMALL_FONT_SIZE,
       "figure.titlesize": FONT_SIZE, "savefig.dpi": 150, "figure.dpi": 150, "legend.frameon": False,
       "axes.formatter.useoffset": False, "axes.formatter.use_mathtext": True}

#: The book's palette: Okabe and Ito's eight colours, told apart under the common colour-vision
#: deficiencies (no red/green pair), black last.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: One colour per method across the book, so that a method keeps its colour from figure to figure.
METHOD_COLOURS = {
    "BuildTopDownDT": "#0072B2", "TopDown": "#0072B2", "MiniBatchTopDown": "#56B4E9",
    "ID3": "#009E73", "FIND": "#D55E00", "optimal": "#D55E00", "scikit-learn": "#000000", "CART": "#000000",
    "L2": "#CC79A7", "L1": "#E69F00", "pystreed": "#7F7F7F", "bound": "#000000",
}
#: The impurity functions of [BGLT20] and [BDM20], one colour each.
IMPURITY_COLOURS = {"entropy": "#0072B2", "Gini": "#E69F00", "Kearns–Mansour": "#009E73"}


def method_colour(name: str) -> str:
    """The book's colour of a method (:data:`METHOD_COLOURS`, matched on the name's start)."""
    for method, colour in METHOD_COLOURS.items():
        if name.startswith(method):
            return colour
    raise ValueError(f"name must start with one of the book's methods {sorted(METHOD_COLOURS)}, got {name!r}")


#: Plain decimals on a log axis between these values; powers of ten outside.
_PLAIN_RANGE = (1e-3, 1e5)


def use_book_style() -> None:
    """Seaborn's white grid with the book's font sizes (idempotent)."""
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook", palette=list(OKABE_ITO), rc=_RC)
    plt.rcParams.update(_RC)


def figure(ncols: int = 1, nrows: int = 1, *, height: float = 3.6, **subplot_kw: object):
    """A new figure of the book's width with ``nrows`` x ``ncols`` axes: ``(fig, axes)``."""
    if ncols < 1 or nrows < 1:
        raise ValueError(f"ncols and nrows must be at least 1, got {ncols} and {nrows}")
    if not 1.0 <= height <= 12.0:
        raise ValueError(f"height must be in [1, 12] inches, got {height}")
    return plt.subplots(nrows, ncols, figsize=(WIDTH, height), **subplot_kw)


# --------------------------------------------------------------------------------------------
# Legends
# --------------------------------------------------------------------------------------------


def legend(ax: Axes, where: str = "inside", *, ncol: int | None = None, **kwargs: object) -> Legend | None:
    """Put ``ax``'s legend in its free area (``"inside"``, matplotlib's emptiest corner, with a
    faint frame so lines behind it do not cross the text) or in rows under it (``"below"``).

    Returns the legend, or None when ``ax`` has nothing labelled.
    """
    if where not in ("inside", "below"):
        raise ValueError(f"where must be 'inside' or 'below', got {where!r}")
    handles, labels = ax.get_legend_handles_labels()
    handles = kwargs.pop("handles", handles)
    labels = kwargs.pop("labels", labels)
    if not labels:
        return None
    if where == "inside":
        kwargs = {"loc": "best", "frameon": True, "framealpha": 0.85, "edgecolor": "none", **kwargs}
        return ax.legend(handles, labels, ncol=ncol or 1, **kwargs)
    columns = ncol or _columns_for(labels, _axes_width_inches(ax))
    kwargs = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.16), "frameon": False, **kwargs}
    result = ax.legend(handles, labels, ncol=columns, **kwargs)
    result._book_under_axes = True  # show() moves it under the axes' tick labels and label
    return result


def legend_below(fig: Figure, axes: Sequence[Axes] | None = None, *, ncol: int | None = None,
                 **kwargs: object) -> Legend | None:
    """One legend for the whole figure, in rows under all its axes (duplicate labels once).

    The axes' own legends are removed; :func:`show` keeps the row inside the figure.
    """
    handles, labels, seen = [], [], set()
    for ax in axes if axes is not None else fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in seen and not label.startswith("_"):
                seen.add(label)
                handles.append(handle)
                labels.append(label)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    if not labels:
        return None
    columns = ncol or _columns_for(labels, WIDTH)
    kwargs = {"loc": "lower center", "bbox_to_anchor": (0.5, 0.0), "frameon": False, **kwargs}
    result = fig.legend(handles, labels, ncol=columns, **kwargs)
    result._book_below = True  # show() reserves room for it under the axes
    return result


def _axes_width_inches(ax: Axes) -> float:
    return ax.get_position().width * ax.figure.get_figwidth()


def _columns_for(labels: Sequence[str], width_inches: float) -> int:
    """As many legend columns as fit ``width_inches`` with the longest label (at the legend's font)."""
    longest = max(len(str(label)) for label in labels)
    per_column = 0.6 + 0.55 * longest * SMALL_FONT_SIZE / 72.0  # marker + text, inches
    return max(1, min(len(labels), int(width_inches // per_column)))


# --------------------------------------------------------------------------------------------
# Ticks
# --------------------------------------------------------------------------------------------


def plain_number(value: float) -> str:
    """A tick value as a reader writes it: 0.05, 0.2, 4, 2000, 50000 (no exponent, no trailing 0)."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    digits = max(0, -math.floor(math.log10(abs(value))) + 2)
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"
    return text.replace("-", "−")


def log_tick_label(value: float, _position: object = None) -> str:
    """Plain decimals between 0.001 and 100000, ``10^k`` (or ``m×10^k``) outside."""
    if value <= 0 or not math.isfinite(value):
        return ""
    if _PLAIN_RANGE[0] <= value < _PLAIN_RANGE[1]:
        return plain_number(value)
    exponent = math.floor(math.log10(value) + 1e-9)
    mantissa = value / 10.0**exponent
    if abs(mantissa - round(mantissa)) > 1e-6:
        return ""
    if round(mantissa) == 1:
        return f"$10^{{{exponent}}}$"
    return f"${round(mantissa)}\\times10^{{{exponent}}}$"


def signed_log_tick_label(value: float, _position: object = None) -> str:
    """:func:`log_tick_label` for a symmetric log axis: 0, and a sign before negative values (−10, not −10⁰)."""
    if value == 0:
        return "0"
    label = log_tick_label(abs(value))
    return f"−{label}" if value < 0 and label else label


_DEFAULT_LOG_FORMATTERS = (ticker.LogFormatterSciNotation, ticker.LogFormatterMathtext, ticker.LogFormatter)
_DEFAULT_LOCATORS = (ticker.AutoLocator, ticker.LogLocator, ticker.MaxNLocator)


def _is_default(thing: object, kinds: tuple[type, ...]) -> bool:
    return type(thing) in kinds


def _format_axis(axis: matplotlib.axis.Axis) -> None:
    """Plain numbers on short log axes, powers of ten on long ones; no offset on linear ones."""
    scale = axis.get_scale()
    if scale == "log":
        low, high = sorted(axis.get_view_interval())
        if low <= 0 or not math.isfinite(low * high):
            return
        decades = math.log10(high / low)
        if _is_default(axis.get_major_locator(), _DEFAULT_LOCATORS):
            subs = (1.0, 2.0, 5.0) if decades <= 2.5 else (1.0,)
            axis.set_major_locator(ticker.LogLocator(base=10.0, subs=subs, numticks=12))
            axis.set_minor_locator(ticker.LogLocator(base=10.0, subs=tuple(range(2, 10)), numticks=12))
        if _is_default(axis.get_major_formatter(), _DEFAULT_LOG_FORMATTERS):
            axis.set_major_formatter(ticker.FuncFormatter(log_tick_label))
        if _is_default(axis.get_minor_formatter(), _DEFAULT_LOG_FORMATTERS):
            axis.set_minor_formatter(ticker.NullFormatter())
    elif scale == "symlog":
        if _is_default(axis.get_major_formatter(), _DEFAULT_LOG_FORMATTERS):
            axis.set_major_formatter(ticker.FuncFormatter(signed_log_tick_label))
        if _is_default(axis.get_minor_formatter(), _DEFAULT_LOG_FORMATTERS):
            axis.set_minor_formatter(ticker.NullFormatter())
    elif scale == "linear":
        formatter = axis.get_major_formatter()
        if type(formatter) is ticker.ScalarFormatter:
            formatter.set_useOffset(False)


def _visible_tick_labels(axis: matplotlib.axis.Axis, renderer) -> list:
    """Window extents of the major tick labels drawn inside the axis' span, in axis order."""
    ax = axis.axes
    box = ax.get_window_extent(renderer)
    horizontal = axis.axis_name == "x"
    low, high = (box.x0, box.x1) if horizontal else (box.y0, box.y1)
    extents = []
    for tick in axis.get_major_ticks():
        label = tick.label1
        if not (label.get_visible() and label.get_text()):
            continue
        position = tick.get_loc()
        low_view, high_view = sorted(axis.get_view_interval())
        if not low_view - 1e-12 * abs(low_view) <= position <= high_view + 1e-12 * abs(high_view):
            continue
        extent = label.get_window_extent(renderer)
        centre = (extent.x0 + extent.x1) / 2 if horizontal else (extent.y0 + extent.y1) / 2
        if low - 2 <= centre <= high + 2:
            extents.append(extent)
    return sorted(extents, key=(lambda e: e.x0) if horizontal else (lambda e: e.y0))


def labels_collide(axis: matplotlib.axis.Axis, renderer, gap_em: float = 0.5) -> bool:
    """Whether two neighbouring major tick labels of ``axis`` overlap or stand closer than
    ``gap_em`` of their font size (so that "200000 400000" does not read as one number)."""
    extents = _visible_tick_labels(axis, renderer)
    labels = axis.get_ticklabels()
    size = labels[0].get_fontsize() if labels else SMALL_FONT_SIZE
    gap_px = gap_em * size * axis.figure.dpi / 72.0
    horizontal = axis.axis_name == "x"
    for left, right in zip(extents, extents[1:]):
        if horizontal and right.x0 < left.x1 + gap_px:
            return True
        if not horizontal and right.y0 < left.y1 + gap_px / 2:
            return True
    return False


def _thin_ticks(axis: matplotlib.axis.Axis) -> bool:
    """Fewer major ticks on ``axis``; False when nothing more can be done."""
    locator = axis.get_major_locator()
    if isinstance(locator, ticker.LogLocator):
        subs = getattr(locator, "_subs", None)
        subs = None if isinstance(subs, str) else subs
        if subs is not None and len(subs) > 1:
            axis.set_major_locator(ticker.LogLocator(base=10.0, subs=(1.0,), numticks=12))
            return True
        numticks = locator.numticks if isinstance(locator.numticks, int) else 12
        if numticks > 3:
            axis.set_major_locator(ticker.LogLocator(base=10.0, subs=(1.0,), numticks=max(3, numticks // 2)))
            return True
        return False
    if type(locator) is ticker.AutoLocator or type(locator) is ticker.MaxNLocator:
        count = max(3, len(axis.get_majorticklocs()))
        if count <= 3:
            return False
        axis.set_major_locator(ticker.MaxNLocator(nbins=max(2, count // 2), steps=[1, 2, 2.5, 5, 10]))
        return True
    if axis.axis_name == "x" and not getattr(axis, "_book_slanted", False):
        for label in axis.get_ticklabels():
            label.set_rotation(30)
            label.set_horizontalalignment("right")
        axis._book_slanted = True
        return True
    return False


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------


def _raise_small_text(fig: Figure) -> None:
    for text in fig.findobj(Text):
        if text.get_text() and text.get_fontsize() < MIN_FONT_SIZE:
            text.set_fontsize(MIN_FONT_SIZE)


def _legends_off_the_right(fig: Figure, renderer) -> None:
    """Move an axes' legend that sits to the right of its axes (outside them) below them."""
    for ax in fig.axes:
        old = ax.get_legend()
        if old is None or not old.get_visible():
            continue
        if old.get_window_extent(renderer).x0 < ax.get_window_extent(renderer).x1 - 1:
            continue  # inside, or overlapping the axes: the chapter chose it
        handles, labels = old.legend_handles, [t.get_text() for t in old.get_texts()]
        title = old.get_title().get_text() or None
        old.remove()
        legend(ax, "below", handles=handles, labels=labels, title=title)


def _under_axes(fig: Figure, renderer) -> None:
    """Anchor each "below" legend of an axes just under that axes' tick labels and axis label."""
    for ax in fig.axes:
        lg = ax.get_legend()
        if lg is None or not getattr(lg, "_book_under_axes", False):
            continue
        lg.set_in_layout(False)
        bottom = ax.get_tightbbox(renderer, bbox_extra_artists=[]).y0
        box = ax.get_window_extent(renderer)
        lg.set_bbox_to_anchor((0.5, (bottom - 4 - box.y0) / max(box.height, 1.0)), transform=ax.transAxes)
        lg.set_in_layout(True)


def _layout(fig: Figure) -> None:
    below = [lg for lg in fig.legends if getattr(lg, "_book_below", False)]
    bottom = 0.0
    if below:
        fig.canvas.draw()
        height = fig.bbox.height or 1.0
        bottom = min(0.45, max(lg.get_window_extent().height for lg in below) / height + 0.01)
    for _ in range(2):  # the legends under their axes move with the layout: settle twice
        fig.tight_layout(rect=(0.0, bottom, 1.0, 1.0))
        if not any(getattr(ax.get_legend(), "_book_under_axes", False) for ax in fig.axes):
            break
        fig.canvas.draw()
        _under_axes(fig, fig.canvas.get_renderer())


def show(fig: Figure, name: str) -> None:
    """Apply the book's figure rules, lay ``fig`` out, glue it under ``name`` and close it.

    The rules (module docstring): the book's width, no text under 9 pt at page width, plain
    tick labels that never collide, no legend to the right of its axes. Outside a notebook
    (tests, scripts) the figure is only prepared and closed.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty glue name, got {name!r}")
    shown_code = code_names(fig)
    if shown_code:
        plt.close(fig)
        raise ValueError(f"figure {name} shows code where a reader expects words: {'; '.join(shown_code)}")
    prepare(fig)
    try:
        from IPython import get_ipython

        in_kernel = get_ipython() is not None
    except ImportError:  # pragma: no cover - IPython ships with the book's requirements
        in_kernel = False
    if in_kernel:
        from myst_nb import glue

        glue(name, fig, display=False)
    plt.close(fig)


#: Code a reader should not meet in a figure: snake_case names (point_mass, label_fn), keyword
#: arguments (eps=0.05), module paths (dtcore.find) and library calls (make_classification).
CODE_IN_TEXT = __import__("re").compile(
    r"(?<![\w\\{])[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z_]{2,}=[\w.]+|\bdtcore\.\w+|\btracemalloc\b")


def code_names(fig: Figure) -> list[str]:
    """Every text of ``fig`` (titles, labels, legends, annotations) that shows code instead of words;
    maths between ``$`` signs is the reader's notation and is left out."""
    import re

    found = []
    for text in fig.findobj(Text):
        words = re.sub(r"\$[^$]*\$", " ", text.get_text())
        match = CODE_IN_TEXT.search(words)
        if match and text.get_visible():
            found.append(f"{match.group()!r} in {text.get_text()!r}")
    return list(dict.fromkeys(found))


def prepare(fig: Figure) -> Figure:
    """What :func:`show` does to ``fig`` before gluing it (returned, for tests and scripts)."""
    fig.set_figwidth(WIDTH)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            _format_axis(axis)
    _raise_small_text(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    _legends_off_the_right(fig, renderer)
    _raise_small_text(fig)
    _layout(fig)
    for _ in range(4):  # thin the ticks of colliding axes, then lay out again
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        changed = False
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_visible() and labels_collide(axis, renderer):
                    changed |= _thin_ticks(axis)
        if not changed:
            break
        _layout(fig)
    return fig


use_book_style()
