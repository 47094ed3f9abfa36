"""The verification summary as a reader gets it: built by Sphinx the way the book builds a chapter.

A one-page notebook holds two book boxes and, as a cell output, a table's summary. Sphinx with
MyST-NB (Markdown outputs rendered as MyST, as ``_config.yml`` asks), sphinx-proof and
sphinx-design must turn its box labels into links named after the boxes, fold the full table into
a dropdown, and leave none of the markup a reader would see as broken (``tests/test_html.py``'s
checks, and raw roles or fences in the output, which those checks do not look at).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import yaml
from bs4 import BeautifulSoup

from dtbook.report import VerificationTable
from tests.test_html import page_problems

REPO = Path(__file__).resolve().parents[1]

CONF = """\
extensions = ["myst_nb", "sphinx_proof", "sphinx_design"]
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath"]
nb_execution_mode = "off"
nb_render_markdown_format = {fmt!r}
"""

BOXES = ("# Page\n\n```{prf:theorem} Minibatch guarantee\n:label: thm-demo-1\n\nText.\n```\n\n"
         "```{prf:lemma} Size estimator\n:label: lem-demo-2\n\nText.\n```\n")


def demo_table() -> VerificationTable:
    t = VerificationTable()
    t.theorem("[BGLT20] Theorem 1", "excess error | at t = 32", 0.03, 0.05, reach=(0.0, 1.0), box="thm-demo-1",
              measured_by="dtcore.cube.exact_error", bound_by="dtcore.bounds.bglt_eps", worst_case="b = 8, t = 8")
    t.theorem("[BGLT20] Lemma 2", "labels * 2_x", 0.0, 0.0, reach=(0.0, 4.0), box="lem-demo-2",
              measured_by="dtcore.local.count", bound_by="zero")
    t.bound("[BLT20] Lemma 5.2", "error / bound", 0.4, 1.0, value_range=(0.0, math.inf), box="the paper's Lemma 1.2")
    t.identity("Lemma 5.1", "max |drop − score|", 0.0, 1e-12, computed_by=("a.f", "b.g"))
    t.observation("[BDM20] Theorem 1", "m asked / m used", 1e23, why="vacuous at any feasible size")
    return t


def build(tmp_path: Path, fmt: str = "myst") -> Path:
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(CONF.format(fmt=fmt))
    summary = demo_table().summary()
    nb = {"cells": [{"cell_type": "markdown", "id": "boxes", "metadata": {}, "source": BOXES},
                    {"cell_type": "code", "execution_count": 1, "id": "close", "metadata": {}, "source": "close()",
                     "outputs": [{"output_type": "display_data", "metadata": {}, "data": summary.mimebundle()}]}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (source / "index.ipynb").write_text(json.dumps(nb))
    out = tmp_path / "html"
    result = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", "-W", str(source), str(out)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return out / "index.html"


def test_the_book_renders_markdown_outputs_as_myst():
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    assert config["sphinx"]["config"]["nb_render_markdown_format"] == "myst"


def test_summary_renders_with_box_links_and_a_collapsed_full_table(tmp_path):
    page = build(tmp_path)
    text = page.read_text()
    assert page_problems(text, "index", page) == []
    soup = BeautifulSoup(text, "html.parser")
    links = {a.get_text(strip=True): a["href"] for a in soup.select("a.reference.internal") if "#" in a["href"]}
    assert links.get("Theorem 1") == "#thm-demo-1" and links.get("Lemma 1") == "#lem-demo-2"
    statements, dropdown = soup.select("details.sd-dropdown")
    assert "open" not in dropdown.attrs and "open" not in statements.attrs
    assert "verdict, margin, hardest case" in statements.get_text(" ", strip=True)
    assert "The full verification table (5 rows)" in dropdown.get_text(" ", strip=True)
    assert len(dropdown.find_all("table")) == 3   # theorem checks, identities, observations
    body = soup.get_text(" ", strip=True)
    # test_html skips outputs when it looks for raw markup; with CommonMark outputs (MyST-NB's
    # default) a reader would see "{prf:ref} thm-demo-1" and ":::{dropdown}" here
    assert "{prf:" not in body and ":::" not in body and "{dropdown}" not in body
    assert "thm-demo-1" not in body and "lem-demo-2" not in body   # labels never shown as text
    assert "excess error | at t = 32" in body and "labels * 2_x" in body
    colours = [span["style"] for span in soup.select("span[style]")]
    assert any("#5E3C99" in c for c in colours) and any("#666666" in c for c in colours)
