"""Sphinx extension: under each reference of the bibliography, links back to where it is cited.

sphinxcontrib-bibtex gives a bibliography entry back-references only to citations in the same
document; the book cites from its chapters and lists the references on their own page. This
extension adds, once every document is resolved, a line "Cited in: 1. Top-down induction (2, 3); 4. ..."
under each entry: one link per citing page to its first citation of the entry (the citation's
own anchor), with the further citations on that page as numbered links.

Enabled in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx


def _page_title(app: Sphinx, docname: str) -> str:
    env = app.builder.env
    title = env.titles[docname].astext() if docname in env.titles else docname
    numbers = env.toc_secnumbers.get(docname, {}).get("")
    return f"{'.'.join(map(str, numbers))}. {title}" if numbers else title


def add_backlinks(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Append the "Cited in" line to every citation of ``docname``'s bibliographies."""
    if app.builder.format != "html":
        return
    domain = app.builder.env.get_domain("cite")
    by_id = {citation.citation_id: citation for citation in domain.citations}
    for node in doctree.findall(nodes.citation):
        citation = next((by_id[i] for i in node.get("ids", []) if i in by_id), None)
        if citation is None:
            continue
        places: dict[str, list[str]] = {}
        for ref in domain.citation_refs:
            if ref.docname != docname and citation.key in {target.key for target in ref.targets}:
                places.setdefault(ref.docname, []).append(ref.citation_ref_id)
        if not places:
            continue
        line = nodes.paragraph(classes=["cited-in"])
        line += nodes.Text("Cited in: ")
        order = {name: index for index, name in enumerate(_toc_order(app))}
        for position, (citing, anchors) in enumerate(sorted(places.items(), key=lambda p: order.get(p[0], 1e9))):
            if position:
                line += nodes.Text("; ")
            uri = app.builder.get_relative_uri(docname, citing)
            line += nodes.reference("", _page_title(app, citing), internal=True, refuri=f"{uri}#{anchors[0]}")
            if len(anchors) > 1:
                line += nodes.Text(" (")
                for number, anchor in enumerate(anchors[1:], start=2):
                    if number > 2:
                        line += nodes.Text(", ")
                    line += nodes.reference("", str(number), internal=True, refuri=f"{uri}#{anchor}")
                line += nodes.Text(")")
        node += line


def _toc_order(app: Sphinx) -> list[str]:
    """Documents in reading order (the table of contents), then any others."""
    env = app.builder.env
    ordered: list[str] = []

    def walk(docname: str) -> None:
        if docname in ordered:
            return
        ordered.append(docname)
        for child in env.toctree_includes.get(docname, []):
            walk(child)

    walk(app.config.root_doc)
    return ordered + sorted(set(env.found_docs) - set(ordered))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", add_backlinks)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
