"""The book's figure rules (dtbook.figures.show/prepare): each can fail on a figure that breaks it."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dtbook import figures


def _labels(axis) -> list[str]:
    return [t.get_text() for t in axis.get_ticklabels() if t.get_text()]


@pytest.fixture(autouse=True)
def _close_all():
    yield
    plt.close("all")


def test_the_page_scale_gives_nine_points_at_page_width() -> None:
    assert figures.PAGE_SCALE == pytest.approx(figures.COLUMN_PX / (figures.WIDTH * 96))
    assert figures.MIN_FONT_SIZE * figures.PAGE_SCALE >= 9.0 - 1e-9
    assert min(figures.FONT_SIZE, figures.SMALL_FONT_SIZE) >= figures.MIN_FONT_SIZE


def test_small_log_range_gets_plain_numbers_and_no_mantissa() -> None:
    fig, ax = figures.figure(1)
    eta = np.array([0.05, 0.1, 0.2])
    ax.loglog(eta, eta)
    ax.set_xlim(0.04, 0.25)
    figures.prepare(fig)
    labels = _labels(ax.xaxis)
    assert labels and all("10^" not in t and "times" not in t for t in labels), labels
    assert "0.1" in labels and "0.05" in labels


def test_wide_log_range_gets_powers_of_ten() -> None:
    fig, ax = figures.figure(1)
    ax.loglog([1e-12, 1.0], [1.0, 2.0])
    figures.prepare(fig)
    assert any(t.startswith("$10^{") for t in _labels(ax.xaxis)), _labels(ax.xaxis)
    assert figures.log_tick_label(4.0) == "4" and figures.log_tick_label(2e-6) == "$2\\times10^{-6}$"


def test_tick_labels_never_collide() -> None:
    fig, axes = figures.figure(4, height=2.5)
    for ax in axes:
        ax.semilogx([2e3, 5e4], [1, 2])
        ax.set_xticks([2e3, 3e3, 4e3, 5e3, 6e3, 1e4, 2e4, 5e4])  # a fixed locator: labels slant
    axes[0].plot([0, 1e6], [0, 1])
    figures.prepare(fig)
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        assert not figures.labels_collide(ax.yaxis, renderer)
    # the fixed ticks cannot be thinned: they slant instead
    assert axes[1].xaxis.get_ticklabels()[0].get_rotation() == 30


def test_collision_check_can_fail() -> None:
    fig, ax = figures.figure(1, height=2.0)
    ax.set_xlim(0, 1)
    ax.set_xticks(np.linspace(0, 1, 40))
    fig.canvas.draw()
    assert figures.labels_collide(ax.xaxis, fig.canvas.get_renderer())


def test_legend_outside_on_the_right_moves_below() -> None:
    fig, ax = figures.figure(1)
    ax.plot([0, 1], [0, 1], label="a long label for the line")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figures.prepare(fig)
    renderer = fig.canvas.get_renderer()
    legend_box, axes_box = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    assert legend_box.x1 <= fig.bbox.x1 + 1 and legend_box.y1 <= axes_box.y0
    assert fig.get_tightbbox(renderer).width <= figures.WIDTH + 0.05  # the image keeps the book width


def test_small_text_is_raised_and_width_is_the_books() -> None:
    fig, ax = plt.subplots(figsize=(12, 3))
    ax.text(0.5, 0.5, "note", fontsize=6)
    figures.prepare(fig)
    assert fig.get_figwidth() == figures.WIDTH
    assert min(t.get_fontsize() for t in fig.findobj(plt.Text) if t.get_text()) >= figures.MIN_FONT_SIZE


def test_legend_helpers() -> None:
    fig, axes = figures.figure(2)
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="shared")
    axes[0].plot([0, 1], [1, 0], label="only left")
    assert figures.legend(axes[0], "inside") is not None
    row = figures.legend_below(fig)
    assert [t.get_text() for t in row.get_texts()] == ["shared", "only left"]
    assert all(ax.get_legend() is None for ax in axes)
    figures.prepare(fig)
    renderer = fig.canvas.get_renderer()
    assert row.get_window_extent(renderer).y1 <= min(ax.get_tightbbox(renderer).y0 for ax in axes) + 1
    with pytest.raises(ValueError, match="where"):
        figures.legend(axes[0], "right")


def test_symlog_axis_gets_signed_plain_labels() -> None:
    fig, ax = figures.figure(1)
    ax.plot([-5, 0, 50], [0, 1, 2])
    ax.set_xscale("symlog")
    figures.prepare(fig)
    labels = _labels(ax.xaxis)
    assert "0" in labels and "10" in labels and "−1" in labels, labels
    assert not any("10^" in t for t in labels), labels


def test_code_in_a_figure_is_refused_and_maths_is_not() -> None:
    import matplotlib.pyplot as plt

    from dtbook import figures

    fig, ax = plt.subplots()
    ax.plot([1, 2], label="point_mass")
    ax.set_title("eps=0.05")
    ax.legend()
    assert len(figures.code_names(fig)) == 2
    with pytest.raises(ValueError, match="shows code where a reader expects words"):
        figures.show(fig, "fig_with_code")
    fig, ax = plt.subplots()
    ax.plot([1, 2], label="point mass")
    ax.set_xlabel(r"$\varepsilon_{\rm max}$ and $p_{i}$")
    ax.legend()
    assert figures.code_names(fig) == []
    figures.show(fig, "fig_in_words")


def test_each_method_keeps_one_colour() -> None:
    from dtbook import figures

    assert figures.method_colour("ID3 (depth 3)") == figures.method_colour("ID3")
    assert figures.method_colour("FIND") != figures.method_colour("ID3")
    with pytest.raises(ValueError, match="name must start with"):
        figures.method_colour("a method nobody drew")
