"""The book's one figure style and the one way a chapter shows a figure.

Every figure is :data:`WIDTH` inches wide (the text column), drawn with one font scale so that its
text reads at about 9 points or more at page width, and handed to the page through :func:`show`,
which lays it out, glues it under a name for a numbered ``{glue:figure}`` and closes it. Call
:func:`use_book_style` once per chapter (the experiments modules do it on import of this module).
"""

from __future__ import annotations

import os

import matplotlib

if not os.environ.get("MPLBACKEND"):
    # Outside a kernel (tests, scripts) draw off-screen. Inside one, ipykernel has set MPLBACKEND to
    # its inline backend, whose PNG formatter is what lets glue() store a figure as an image; forcing
    # Agg there would leave glue with the figure's text repr only.
    matplotlib.use("Agg", force=False)

import matplotlib.pyplot as plt  # noqa: E402

#: Width of every figure, inches: the book's text column.
WIDTH = 7.0
#: Font size of every label, tick and legend, points (at WIDTH, about 9.5 points at page width).
FONT_SIZE = 12.0

_RC = {"font.size": FONT_SIZE, "axes.titlesize": FONT_SIZE, "axes.labelsize": FONT_SIZE,
       "legend.fontsize": FONT_SIZE - 1, "xtick.labelsize": FONT_SIZE - 1, "ytick.labelsize": FONT_SIZE - 1,
       "savefig.dpi": 150, "figure.dpi": 150, "legend.frameon": False}


def use_book_style() -> None:
    """Seaborn's white grid with the book's font sizes (idempotent)."""
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook", rc=_RC)
    plt.rcParams.update(_RC)


def figure(ncols: int = 1, nrows: int = 1, *, height: float = 3.6, **subplot_kw: object):
    """A new figure of the book's width with ``nrows`` x ``ncols`` axes: ``(fig, axes)``."""
    if ncols < 1 or nrows < 1:
        raise ValueError(f"ncols and nrows must be at least 1, got {ncols} and {nrows}")
    if not 1.0 <= height <= 12.0:
        raise ValueError(f"height must be in [1, 12] inches, got {height}")
    return plt.subplots(nrows, ncols, figsize=(WIDTH, height), **subplot_kw)


def show(fig, name: str) -> None:
    """Lay ``fig`` out, glue it under ``name`` (for a ``{glue:figure}`` in the text) and close it.

    Outside a notebook (tests, scripts) the figure is only closed.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty glue name, got {name!r}")
    fig.tight_layout()
    try:
        from IPython import get_ipython

        in_kernel = get_ipython() is not None
    except ImportError:  # pragma: no cover - IPython ships with the book's requirements
        in_kernel = False
    if in_kernel:
        from myst_nb import glue

        glue(name, fig, display=False)
    plt.close(fig)


use_book_style()
