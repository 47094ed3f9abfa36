"""Sphinx extension: alpha citation labels ([BLT20], [OSSS05]) that survive apostrophes.

pybtex's ``alpha`` label style abbreviates a last name only when it is purely alphabetic, so
O'Donnell, Saks, Schramm and Servedio (2005) get the label ``ODonnellSSS05`` instead of the
``OSSS05`` that BibTeX's ``alpha.bst`` gives. This style drops apostrophes from last names
before labelling and is otherwise pybtex's ``alpha``. It is registered as the pybtex formatting
style ``bookalpha``, which ``_config.yml`` selects with ``bibtex_default_style``.

Enabled in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

from typing import Any

from pybtex.database import Person
from pybtex.plugin import register_plugin
from pybtex.style.formatting.alpha import Style as AlphaStyle
from pybtex.style.labels.alpha import LabelStyle as AlphaLabelStyle
from sphinx.application import Sphinx

APOSTROPHES = "'’"


def _without_apostrophes(person: Person) -> Person:
    text = str(person)
    for mark in APOSTROPHES:
        text = text.replace(mark, "")
    return Person(text)


class BookLabelStyle(AlphaLabelStyle):
    """``alpha`` labels computed from last names without apostrophes (O'Donnell -> ODonnell)."""

    def format_lab_names(self, persons: list[Person]) -> str:
        return super().format_lab_names([_without_apostrophes(p) for p in persons])


class BookAlphaStyle(AlphaStyle):
    """pybtex's ``alpha`` formatting style with :class:`BookLabelStyle` labels."""

    default_label_style = BookLabelStyle


def setup(app: Sphinx) -> dict[str, Any]:
    register_plugin("pybtex.style.formatting", "bookalpha", BookAlphaStyle)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
