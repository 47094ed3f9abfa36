"""Checks over the built HTML book, as a reader gets it (issue 14, item 2).

`jupyter-book build -W` only sees Sphinx warnings. Broken markup that Sphinx accepts still
reaches the reader: a fenced directive whose title line holds backticks is no fence at all for
CommonMark, so ``{prf:algorithm}`` prints as literal text and the closing fence opens a code
block that swallows the next paragraph. These tests read every page of ``_build/html`` and fail
on what a reader would see as broken:

- raw directive or role markup (``{prf:...}``, ``{cite:t}``, a ```` ``` ```` fence, ``:label:``);
- raw TeX delimiters in text that MathJax will not typeset (``$x$``, ``\\(`` outside math);
- unresolved references (Sphinx's ``xref`` text with no link, ``??``) and internal links whose
  page or anchor does not exist;
- "nan"/"inf" in a rendered table when no text outside the table (its caption, or the output
  or paragraph around it) says what they mean;
- stderr, warnings, tracebacks or error outputs in code cells.

Under `make test` the book is built once per run from the notebooks nbmake executed
(``tests/book_build.py``, ``tests/conftest.py``); elsewhere `built_book` reuses ``_build/html``
when it is newer than every source it is made of, or builds it like `make book`. The build is
serialised with a file lock, and its outcome stamped in ``_build/html``, so that a second
pytest-xdist worker waits for the first one's build and reuses it, failed or not. (xdist's
``--dist loadgroup`` would keep these tests on one worker, but with pytest 9 it does not group:
xdist 3.8 sets ``item._nodeid``, which pytest 9 no longer reads.)
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup, NavigableString, Tag

from tests.book_build import BUILD, HTML, LOCK, acquire, book_is_fresh, build_book

#: Why the last build of this session failed (None: it passed or was reused).
BUILD_FAILURE: list[str] = []
_BUILT_IN_THIS_PROCESS: list[bool] = []
#: The longest a test waits for the book: every notebook under nbmake, then the build.
BOOK_WAIT = 3600.0


@pytest.fixture(scope="session")
def built_book() -> Path:
    """Path of `_build/html`, once the session's build is done (or a fresh one exists).

    Under `make test` the build from nbmake's executed notebooks holds the lock from the start of
    the session (``tests/conftest.py``); this waits for it and reuses its outcome. Elsewhere
    (``pytest tests/test_html.py``) a stale or missing book is built like `make book`. Modules
    that import this fixture get their own instance of it; the build still happens at most once
    per process (and, through the lock, once per xdist run).
    """
    BUILD.mkdir(exist_ok=True)
    with open(LOCK, "w") as lock:
        acquire(lock, BOOK_WAIT)  # one process builds, the others wait and reuse
        try:
            if not _BUILT_IN_THIS_PROCESS:
                if not book_is_fresh():
                    failure = build_book()
                elif not (HTML / ".build-ok").is_file() and (HTML / ".build-failed").is_file():
                    failure = (HTML / ".build-failed").read_text()  # built by another process
                else:
                    failure = None
                if failure:
                    BUILD_FAILURE.append(failure)
            _BUILT_IN_THIS_PROCESS.append(True)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if not (HTML / "book").is_dir():
        pytest.fail("no pages were built:\n" + "\n".join(BUILD_FAILURE))
    return HTML


def book_pages(html: Path) -> list[Path]:
    """The book's own pages (the table of contents' files), not Sphinx's search or index pages."""
    pages = sorted((html / "book").glob("*.html"))
    if not pages:
        raise FileNotFoundError(f"no pages under {html / 'book'}")
    return pages


# --------------------------------------------------------------------------------------------
# The checks, on one parsed page
# --------------------------------------------------------------------------------------------

#: Directive or role markup that MyST should have consumed: a reader never sees these.
RAW_MARKUP = re.compile(
    r"\{(?:prf:\w+|cite(?::\w+)?|doc|ref|numref|eq|glue(?::\w+)?|math|download|term|"
    r"admonition|note|warning|tip|figure|code-cell|list-table|table|margin|dropdown)\}"
    r"|```"
    r"|^\s*:(?:label|class|nonumber|name|align|width|tags|caption):",
    re.MULTILINE,
)
#: TeX that MathJax leaves alone (only \( \), \[ \] and $$ are delimiters) or that sits outside math.
RAW_TEX = re.compile(r"\\\(|\\\[|\\begin\{|\$\$|\$(?=\S)[^$]*?(?:\\[A-Za-z]+|[_^])[^$]*?\$|\$[A-Za-z]\$")
#: Python's and pandas' spellings of a missing or infinite number; "—" and "∞" are deliberate
#: notation (dtcore.book.report.format_number writes them) and pass.
NOT_A_NUMBER = re.compile(r"^(?:[-+−]?(?:nan|inf|infinity)|<NA>|NaT|None)$", re.IGNORECASE)
EXPLAINS_NAN = re.compile(r"\b(?:nan|inf|infinity)\b|∞", re.IGNORECASE)
WARNING_TEXT = re.compile(r"\b\w*Warning: |Traceback \(most recent call last\)|^\s*warnings\.warn\(", re.M)

#: Elements whose text is code or machinery, not prose: never checked for raw markup.
CODE_TAGS = frozenset({"script", "style", "pre", "code", "kbd", "samp", "textarea", "noscript"})


@dataclass(frozen=True)
class Problem:
    """One thing a reader would see as broken."""

    page: str
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.page}: {self.kind}: {self.detail}"


def _classes(tag: Tag) -> set[str]:
    return set(tag.get("class") or [])


def _inside(node: NavigableString | Tag, predicate) -> bool:
    parent = node.parent
    while parent is not None and isinstance(parent, Tag):
        if predicate(parent):
            return True
        parent = parent.parent
    return False


def _is_code(tag: Tag) -> bool:
    return tag.name in CODE_TAGS or bool(_classes(tag) & {"highlight", "cell_input", "literal-block-wrapper"})


def _is_math(tag: Tag) -> bool:
    return bool(_classes(tag) & {"math", "MathJax", "mjx-container"}) or tag.name.startswith("mjx-")


def _is_output(tag: Tag) -> bool:
    return bool(_classes(tag) & {"output_area", "cell_output", "output"})


def _snippet(text: str, match: re.Match[str], width: int = 60) -> str:
    start = max(0, match.start() - width // 2)
    return " ".join(text[start : match.end() + width // 2].split())


def _main(soup: BeautifulSoup) -> Tag:
    return soup.find("main") or soup.find(attrs={"role": "main"}) or soup.body or soup


def raw_markup_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """Directive/role markup in prose, and prose swallowed into a code block by a broken fence.

    A broken fence leaves its markup as literal text, either in a paragraph or at the start of a
    ``literal_block`` (a code block that is not a notebook cell); both are caught here.
    """
    problems = []
    main = _main(soup)
    for text in main.find_all(string=True):
        if _inside(text, lambda t: t.name in {"script", "style"}) or _inside(text, _is_output):
            continue
        in_code = _inside(text, _is_code)
        in_cell = _inside(text, lambda t: bool(_classes(t) & {"cell", "cell_input"}))
        if in_code and in_cell:
            continue  # a notebook's own source code may quote anything
        for match in RAW_MARKUP.finditer(str(text)):
            problems.append(Problem(page, "raw markup", _snippet(str(text), match)))
    return problems


def raw_tex_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """TeX delimiters in text that is neither math nor code: the reader sees the TeX source.

    Inside outputs MathJax typesets ``\\( \\)`` and ``$$``, so there only single-dollar TeX
    (which MathJax ignores, e.g. a DataFrame column named ``$\\varepsilon$``) counts.
    """
    problems = []
    for text in _main(soup).find_all(string=True):
        if _inside(text, _is_code) or _inside(text, _is_math):
            continue
        in_output = _inside(text, _is_output)
        for match in RAW_TEX.finditer(str(text)):
            if in_output and not match.group().startswith("$") or match.group() == "$$" and in_output:
                continue
            problems.append(Problem(page, "raw TeX", _snippet(str(text), match)))
    return problems


def reference_problems(soup: BeautifulSoup, page: str, page_path: Path | None = None) -> list[Problem]:
    """Unresolved cross-references and internal links to a missing page or anchor."""
    problems = []
    main = _main(soup)
    for tag in main.find_all(class_="xref"):
        if not _inside(tag, lambda t: t.name == "a") and tag.name != "a":
            problems.append(Problem(page, "unresolved reference", tag.get_text(" ", strip=True)))
    for text in main.find_all(string=re.compile(r"\?\?")):
        if not _inside(text, _is_code) and not _inside(text, _is_output):
            problems.append(Problem(page, "unresolved reference", " ".join(str(text).split())[:80]))
    if page_path is None:
        return problems
    own_ids = {tag["id"] for tag in soup.find_all(id=True)}
    for link in main.find_all("a", href=True):
        parts = urlsplit(link["href"])
        if parts.scheme or parts.netloc or link["href"].startswith(("mailto:", "javascript:")):
            continue
        target = (page_path.parent / unquote(parts.path)).resolve() if parts.path else page_path
        if not target.exists():
            problems.append(Problem(page, "broken link", f"{link['href']} ({link.get_text(strip=True)!r})"))
            continue
        if parts.fragment and target.suffix == ".html":
            ids = own_ids if target == page_path else _ids_of(target)
            if unquote(parts.fragment) not in ids:
                problems.append(Problem(page, "broken anchor", f"{link['href']} ({link.get_text(strip=True)!r})"))
    return problems


_ID_CACHE: dict[Path, set[str]] = {}


def _ids_of(path: Path) -> set[str]:
    if path not in _ID_CACHE:
        _ID_CACHE[path] = set(re.findall(r'\bid="([^"]+)"', path.read_text(errors="replace")))
    return _ID_CACHE[path]


def nan_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """"nan"/"inf" cells in a rendered table that no text around the table explains.

    An explanation is any mention of nan/inf/∞ in the table's caption, or in the text of the
    cell output, figure or paragraph that holds the table, outside the table itself.
    """
    problems = []
    for table in _main(soup).find_all("table"):
        cells = [c.get_text(" ", strip=True) for c in table.find_all(["td", "th"])]
        bad = sorted({c for c in cells if NOT_A_NUMBER.match(c)})
        if not bad:
            continue
        caption = table.find("caption")
        explained = caption is not None and EXPLAINS_NAN.search(caption.get_text(" "))
        holder = table.find_parent(class_=["cell_output", "output", "table-wrapper"]) or table.parent
        for _ in range(3):  # the output, its cell, and the text right after the cell
            if explained or holder is None:
                break
            outside = " ".join(
                str(t) for t in holder.find_all(string=True) if not _inside(t, lambda x: x is table or x.name == "table")
            )
            explained = bool(EXPLAINS_NAN.search(outside))
            nxt = holder.find_next_sibling()
            if not explained and nxt is not None and nxt.name in {"p", "div"}:
                explained = bool(EXPLAINS_NAN.search(nxt.get_text(" ")))
            holder = holder.parent
        if not explained:
            header = " | ".join(cells[:6])
            problems.append(Problem(page, "unexplained nan/inf", f"{bad} in table starting {header!r}"))
    return problems


def output_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """stderr streams, warnings, tracebacks and error outputs in code cells."""
    problems = []
    main = _main(soup)
    for tag in main.find_all(class_=["stderr", "error", "traceback"]):
        if _inside(tag, _is_output) or _is_output(tag):
            problems.append(Problem(page, "stderr/error output", tag.get_text(" ", strip=True)[:120]))
    for output in main.find_all(class_="cell_output"):
        text = output.get_text("\n")
        for match in WARNING_TEXT.finditer(text):
            problems.append(Problem(page, "warning in output", _snippet(text, match, 120)))
    return problems


def page_problems(html: str, page: str, page_path: Path | None = None) -> list[Problem]:
    """Every check on one page's HTML."""
    soup = BeautifulSoup(html, "html.parser")
    found = (
        raw_markup_problems(soup, page)
        + raw_tex_problems(soup, page)
        + reference_problems(soup, page, page_path)
        + nan_problems(soup, page)
        + output_problems(soup, page)
    )
    return list(dict.fromkeys(found))  # one line per distinct problem, in page order


# --------------------------------------------------------------------------------------------
# Unit tests of the checks on synthetic pages: each check can fail
# --------------------------------------------------------------------------------------------

CLEAN_PAGE = """<html><body><main>
<p>Let <span class="math notranslate nohighlight">\\(\\varepsilon\\)</span> be small;
see <a class="reference internal" href="#lemma-1">Lemma 1</a>.</p>
<div class="proof lemma admonition" id="lemma-1"><p>Lemma 1.</p></div>
<div class="cell tag_hide-input"><div class="cell_input"><pre>ax.set_xlabel("$\\\\varepsilon$")  # ```{prf:x}</pre></div>
<div class="cell_output"><div class="output stream highlight-myst-ansi"><pre>all 12 checks hold</pre></div>
<div class="output text_html"><table><tr><th>bound</th><td>0.5</td></tr></table></div></div></div>
</main></body></html>"""


def test_clean_page_has_no_problem() -> None:
    assert page_problems(CLEAN_PAGE, "clean") == []


# What MyST made of chapter 5's ID3 box with backticks in the fence's title line: the fence is not
# a fence, its first line is a paragraph, and the closing ``` opens a code block.
BROKEN_FENCE_PAGE = """<html><body><main>
<p>```{prf:algorithm} ID3 (<code class="docutils literal notranslate"><span class="pre">dtcore.id3</span></code>)
:label: alg-id3</p>
<p>Grow the tree greedily.</p>
<div class="highlight-default notranslate"><div class="highlight"><pre><span></span>
The next paragraph, swallowed into a code block.
</pre></div></div>
</main></body></html>"""


def test_broken_prf_fence_is_caught() -> None:
    kinds = {(p.kind, p.detail.split()[0]) for p in page_problems(BROKEN_FENCE_PAGE, "ch5")}
    assert ("raw markup", "```{prf:algorithm}") in kinds
    assert any(p.detail.startswith(":label:") or ":label:" in p.detail for p in page_problems(BROKEN_FENCE_PAGE, "ch5"))


@pytest.mark.parametrize(
    ("snippet", "kind"),
    [
        ("<p>Let $\\varepsilon$ be small.</p>", "raw TeX"),
        ("<p>Let \\(\\varepsilon\\) be small.</p>", "raw TeX"),
        ('<div class="cell_output"><table><tr><th>$\\eta$</th></tr></table></div>', "raw TeX"),
        ("<p>As {cite:t}`blt2020topdown` show.</p>", "raw markup"),
        ('<p>By <span class="xref std std-ref">lemma-9</span>.</p>', "unresolved reference"),
        ("<p>By Lemma ??.</p>", "unresolved reference"),
        ('<div class="cell_output"><table><tr><td>nan</td></tr></table></div>', "unexplained nan/inf"),
        ('<div class="cell_output"><table><tr><td>-inf</td><td>&lt;NA&gt;</td></tr></table></div>', "unexplained nan/inf"),
        ('<div class="cell_output"><div class="output stderr"><pre>100%|###|</pre></div></div>', "stderr/error output"),
        ('<div class="cell_output"><pre>x.py:3: RuntimeWarning: divide by zero</pre></div>', "warning in output"),
        ('<div class="cell_output"><div class="output traceback highlight-ipythontb"><pre>E</pre></div></div>', "stderr/error output"),
    ],
)
def test_each_check_can_fail(snippet: str, kind: str) -> None:
    problems = page_problems(f"<html><body><main>{snippet}</main></body></html>", "synthetic")
    assert kind in {p.kind for p in problems}, problems


def test_deliberate_notation_passes() -> None:
    snippet = '<div class="cell_output"><table><tr><td>—</td><td>∞</td><td>−∞</td></tr></table></div>'
    assert page_problems(f"<html><body><main>{snippet}</main></body></html>", "s") == []


def test_explained_nan_passes() -> None:
    snippet = (
        '<div class="cell_output"><div class="output text_html"><table><tr><td>nan</td></tr></table>'
        "<p>nan: the bound is undefined for s = 1.</p></div></div>"
    )
    assert page_problems(f"<html><body><main>{snippet}</main></body></html>", "s") == []


def test_fresh_means_a_stamp_newer_than_every_source(tmp_path: Path) -> None:
    repo, html = tmp_path, tmp_path / "_build" / "html"
    (repo / "book").mkdir()
    html.mkdir(parents=True)
    source = repo / "book" / "intro.md"
    source.write_text("# Intro\n")
    assert not book_is_fresh(html, repo)  # never built
    for stamp in (".build-ok", ".build-failed"):  # a failed build is reused as well
        (html / stamp).write_text("")
        os.utime(source, (1e9, 1e9))
        assert book_is_fresh(html, repo)
        os.utime(source, (time.time() + 60, time.time() + 60))  # edited after the build
        assert not book_is_fresh(html, repo)
        (html / stamp).unlink()


def test_broken_anchor_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "a.html"
    other = tmp_path / "b.html"
    other.write_text('<html><body><div id="there"></div></body></html>')
    page.write_text(
        '<html><body><main><a href="b.html#there">ok</a><a href="b.html#gone">x</a>'
        '<a href="c.html">y</a></main></body></html>'
    )
    kinds = sorted(p.kind for p in page_problems(page.read_text(), "a", page))
    assert kinds == ["broken anchor", "broken link"]


def test_myst_really_breaks_a_fence_with_backticks(tmp_path: Path) -> None:
    """Build a two-box page with MyST + sphinx-proof and check the test sees the broken one.

    This is chapter 5's breakage reproduced with the book's own parser: Sphinx builds it with
    no warning at all, and only the HTML check notices.
    """
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(
        "extensions = ['myst_parser', 'sphinx_proof']\nmyst_enable_extensions = ['colon_fence', 'dollarmath']\n"
    )
    (source / "index.md").write_text(
        "# Page\n\n"
        "```{prf:algorithm} Good box\n:label: alg-good\n\nGrow the tree.\n```\n\n"
        "```{prf:algorithm} ID3 (`dtcore.id3`)\n:label: alg-id3\n\nGrow the tree greedily.\n```\n\n"
        "The next paragraph.\n"
    )
    out = tmp_path / "html"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-W", str(source), str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr  # Sphinx itself sees nothing wrong
    problems = page_problems((out / "index.html").read_text(), "index", out / "index.html")
    raw = [p for p in problems if p.kind == "raw markup"]
    assert any("{prf:algorithm}" in p.detail for p in raw), problems
    assert not any("Good box" in p.detail for p in raw)


# --------------------------------------------------------------------------------------------
# The real book
# --------------------------------------------------------------------------------------------


def test_book_builds_cleanly(built_book: Path) -> None:
    """`make book`'s command (-W -n --keep-going) passes: no Sphinx warning, no failing chapter."""
    assert not BUILD_FAILURE, BUILD_FAILURE[0]


def test_built_book_pages_read_cleanly(built_book: Path) -> None:
    problems: list[Problem] = []
    for path in book_pages(built_book):
        problems += page_problems(path.read_text(errors="replace"), path.name, path)
    assert not problems, f"{len(problems)} problems a reader would see:\n" + "\n".join(map(str, problems))
