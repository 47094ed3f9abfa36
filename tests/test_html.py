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
- stderr, warnings, tracebacks or error outputs in code cells;
- notebook leftovers (issue 26): a bare ``True``/``False`` output, a dict or list repr, a
  ``print`` (stream) output block, snake_case or plain-text-maths headers in a rendered table, a
  backtick-quoted name in a caption, more than 4 significant digits in a "seconds" column,
  ``e+00`` or ``e-5x`` number formats, internal labels (``thm-bglt-1``) shown as text, and
  "Lemma/Theorem N" in figure and table text (captions, alt text, table cells) that is no box
  number of the book (the paper's numbering passes only as "paper('s) Lemma N").

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
import json
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
#: notation (dtbook.report.format_number writes them) and pass.
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


# --------------------------------------------------------------------------------------------
# Notebook leftovers (issue 26): what a code cell's output should never look like
# --------------------------------------------------------------------------------------------

#: A dict, list, tuple or set repr as the whole output ({'counts': ...}, [0.1, 0.2], dict_keys([...])).
REPR = re.compile(
    r"^\s*(?:\{\s*(?:'[^']*'|\"[^\"]*\"|\d+)\s*:.*\}|\[.*\]|\((?:[^()]*,)+[^()]*\)|"
    r"(?:OrderedDict|defaultdict|Counter|dict_keys|dict_values|dict_items|array)\(.*\))\s*$",
    re.DOTALL,
)
#: snake_case words (osss_min_ratio, p_i) in a table header: a reader's header has none.
SNAKE_CASE = re.compile(r"(?<![\w\\])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")
#: Maths typed as plain text outside MathJax: 2^n, 10^-12, 2^(D+1).
PLAIN_MATHS = re.compile(r"\w\^[-+(]?\w|\w\^\(")
#: Python's exponent formats a reader should not see: e+00 / e-00, and exponents of 50 or more.
E_FORMAT = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?[eE](?:[-+]0+\b|[-+]?[5-9]\d\b|[-+]?\d{3,}\b)")
#: Sphinx labels of the book's boxes and figures (thm-bglt-1, alg-bglt-minibatch, fig-ch4-exact).
INTERNAL_LABEL = re.compile(r"(?<![\w/#.-])(?:thm|lem|lemma|alg|def|cor|prop|conj|obs|fig|tbl|eq|sec)-[a-z0-9]+(?:-[a-z0-9]+)+\b")
#: A numbered result as text: "Lemma 4.6", "Theorem 1", "Thm 10", "Corollary C.1".
RESULT_NUMBER = re.compile(
    r"\b(?P<kind>Lemma|Lem\.|Theorem|Thm\.?|Corollary|Cor\.|Proposition|Prop\.|Claim|Conjecture|Definition|Observation)"
    r"\s+(?P<number>[A-Z]?\d+(?:\.\d+)*|[A-Z](?:\.\d+)+)\b"
)
#: What may precede a paper's own number: "paper Lemma 4.4", "the paper's Theorem 10", "[BLT20, Lemma 3".
PAPER_PREFIX = re.compile(
    r"(?:\bpaper(?:'s|’s)?|\]|\[[A-Za-z+]+\d{2},?|\bin \[[^\]]*\],?|\bof \w+ et al\.?,?|\b[A-Z]{2,}\+?\d{2}(?:'s|’s)?)\s*$",
    re.IGNORECASE,
)
#: A cell that names a paper by its label (OSSS05, [BDM20]): the row's results are that paper's.
PAPER_LABEL_CELL = re.compile(r"^(?:\[?[A-Z][A-Za-z]*\+?\d{2}\]?$|\[[A-Z][A-Za-z]*\+?\d{2}\]\s)")
#: ... or follow it: "Theorem 3 (BGLT 2020)", "Lemma 2 of [BLT20]", "Theorem 10 of the paper".
PAPER_SUFFIX = re.compile(r"^\s*(?:\(|of |in )(?:\[?[A-Z][A-Za-z+]*\s?\d{2,4}\b|the paper\b)")
KIND_NAMES = {"lem.": "lemma", "thm": "theorem", "thm.": "theorem", "cor.": "corollary", "prop.": "proposition"}
#: A math segment as it stands in the HTML before MathJax runs.
MATH_TEXT = re.compile(r"\\\(.*?\\\)|\\\[.*?\\\]|\$\$.*?\$\$|\$[^$]+\$", re.DOTALL)


def _text_without_math(tag: Tag) -> str:
    """``tag``'s text without its math (MathJax spans and ``\\( \\)``/``$ $`` segments) and code."""
    parts = []
    for text in tag.find_all(string=True):
        if _inside(text, _is_math) or _inside(text, lambda t: t.name in {"code", "script", "style"}):
            continue
        parts.append(str(text))
    return MATH_TEXT.sub(" ", " ".join(parts))


def book_numbers(soup: BeautifulSoup) -> set[tuple[str, str]]:
    """The (kind, number) of every numbered box of a page: ('lemma', '4.6') for "Lemma 4.6"."""
    numbers = set()
    for box in soup.find_all(class_="proof"):
        caption = box.find(class_="caption-number")
        match = RESULT_NUMBER.search(caption.get_text(" ", strip=True)) if caption is not None else None
        if match:
            numbers.add(_result_key(match))
    return numbers


def _result_key(match: re.Match[str]) -> tuple[str, str]:
    kind = match.group("kind").lower()
    return KIND_NAMES.get(kind, kind.rstrip(".")), match.group("number")


def _outputs(main: Tag) -> list[Tag]:
    return [o for o in main.find_all(class_="output") if _inside(o, lambda t: "cell_output" in _classes(t))]


def leftover_output_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """print() blocks, bare True/False and dict/list reprs among the code cells' outputs."""
    problems = []
    for output in _outputs(_main(soup)):
        classes = _classes(output)
        text = output.get_text("\n").strip()
        if "stream" in classes and not classes & {"stderr"}:
            problems.append(Problem(page, "print output", " ".join(text.split())[:100]))
            continue
        if not classes & {"text_plain", "stream"}:
            continue
        if text in {"True", "False", "np.True_", "np.False_"}:
            problems.append(Problem(page, "bare True/False output", text))
        elif REPR.match(text):
            problems.append(Problem(page, "dict/list repr output", " ".join(text.split())[:100]))
    return problems


def _table_rows(table: Tag) -> list[list[Tag]]:
    """The table's rows as lists of cells, a cell repeated over its colspan."""
    rows = []
    for row in table.find_all("tr"):
        if row.find_parent("table") is not table:
            continue
        cells: list[Tag] = []
        for cell in row.find_all(["th", "td"], recursive=False):
            cells += [cell] * max(1, int(cell.get("colspan", 1) or 1))
        rows.append(cells)
    return rows


SECONDS_HEADER = re.compile(r"\bseconds?\b|\(s\)|\btime \[?s\]?|\bwall\b", re.IGNORECASE)
NUMBER = re.compile(r"^[-+−]?(\d[\d,]*)(?:\.(\d+))?$")


def significant_digits(text: str) -> int:
    """Significant digits of a number as written: 28.700000 -> 8, 0.0123 -> 3, 1200 -> 2; 0 if not a number."""
    match = NUMBER.match(text.strip())
    if not match:
        return 0
    whole, fraction = match.group(1).replace(",", ""), match.group(2)
    if fraction is None:
        return len(whole.lstrip("0").rstrip("0")) or 1
    digits = (whole + fraction).lstrip("0")
    return len(digits) or 1


def table_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """Rendered tables: snake_case or plain-maths headers, over-precise seconds, raw exponents."""
    problems = []
    for table in _main(soup).find_all("table"):
        rows = _table_rows(table)
        headers = [cell for row in rows for cell in row if cell.name == "th"]
        for cell in dict.fromkeys(headers):
            text = _text_without_math(cell)
            for pattern, kind in ((SNAKE_CASE, "snake_case header"), (PLAIN_MATHS, "plain-text maths in a header")):
                match = pattern.search(text)
                if match:
                    problems.append(Problem(page, kind, _snippet(text, match)))
        for row_index, row in enumerate(rows):
            for column, cell in enumerate(row):
                if cell.name != "th" or not SECONDS_HEADER.search(cell.get_text(" ")):
                    continue
                for later in rows[row_index + 1 :]:
                    if column < len(later) and later[column].name == "td":
                        value = later[column].get_text(" ", strip=True)
                        if significant_digits(value) > 4:
                            problems.append(
                                Problem(page, "over-precise seconds", f"{value!r} under {cell.get_text(' ', strip=True)!r}")
                            )
    return problems


def number_format_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """``e+00``, ``e-51`` and the like in anything a reader reads (not code, not math)."""
    problems = []
    for text in _main(soup).find_all(string=True):
        if _inside(text, _is_math) or _inside(text, lambda t: t.name in {"script", "style"}):
            continue
        if _inside(text, _is_code) and not _inside(text, _is_output):
            continue
        for match in E_FORMAT.finditer(MATH_TEXT.sub(" ", str(text))):
            problems.append(Problem(page, "raw exponent format", _snippet(str(text), match)))
    return problems


def label_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """Internal labels (``thm-bglt-1``) shown as text to the reader."""
    problems = []
    for text in _main(soup).find_all(string=True):
        if _inside(text, lambda t: t.name in {"script", "style"}) or (
            _inside(text, _is_code) and _inside(text, lambda t: "cell_input" in _classes(t))
        ):
            continue
        for match in INTERNAL_LABEL.finditer(str(text)):
            problems.append(Problem(page, "internal label shown", _snippet(str(text), match)))
    return problems


def _figure_texts(main: Tag) -> list[tuple[str, str]]:
    """(where, text) of every caption, image alt/title text and table cell of a page."""
    texts = []
    for caption in main.find_all(["figcaption", "caption"]):
        texts.append(("caption", _text_without_math(caption)))
    for image in main.find_all("img"):
        for attribute in ("alt", "title"):
            if image.get(attribute):
                texts.append((f"image {attribute}", image[attribute]))
    for table in main.find_all("table"):
        rows = _table_rows(table)
        header = rows[0] if rows else []
        paper_column = any(cell.name == "th" and "paper" in cell.get_text(" ").lower() for cell in header)
        for row in rows[1:] if paper_column else rows:
            if paper_column:
                continue  # a table with a "paper result" column beside the book box: its rows cite the paper
            if any(PAPER_LABEL_CELL.match(cell.get_text(" ", strip=True)) for cell in row):
                continue  # the row names its paper: its result numbers are the paper's
            for column, cell in enumerate(dict.fromkeys(row)):
                heading = header[column].get_text(" ") if column < len(header) and header[column] is not cell else ""
                if "paper" in heading.lower():
                    continue  # a column of the paper's own result names ("paper result")
                texts.append(("table cell", _text_without_math(cell)))
    return texts


def caption_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """A backtick-quoted name in a caption (a Markdown literal that did not render)."""
    problems = []
    for caption in _main(soup).find_all(["figcaption", "caption"]):
        text = caption.get_text(" ")
        match = re.search(r"`[^`\s][^`]*`?", text)
        if match:
            problems.append(Problem(page, "backtick in a caption", _snippet(text, match)))
    for holder in _main(soup).find_all(class_=["caption-text", "admonition-title"]):
        if holder.find_parent(["figcaption", "caption"]) is None and "`" in holder.get_text():
            problems.append(Problem(page, "backtick in a caption", holder.get_text(" ", strip=True)[:80]))
    return problems


def numbering_problems(soup: BeautifulSoup, page: str, numbers: set[tuple[str, str]] | None = None) -> list[Problem]:
    """"Lemma/Theorem N" in captions, alt text or tables that is no box number of the book.

    ``numbers`` is the book's set of box numbers (:func:`book_numbers` over every page); without
    it the page's own boxes count. The paper's numbering passes when it says so ("paper Lemma 4.4").
    """
    main = _main(soup)
    if numbers is not None and not numbers:
        return []  # the book numbers no box (every box is unnumbered): a result number is the paper's
    numbers = book_numbers(soup) if numbers is None else numbers
    problems = []
    for where, text in _figure_texts(main):
        for match in RESULT_NUMBER.finditer(text):
            if (
                _result_key(match) in numbers
                or PAPER_PREFIX.search(text[: match.start()])
                or PAPER_SUFFIX.match(text[match.end() :])
            ):
                continue
            problems.append(Problem(page, "not the book's numbering", f"{match.group()!r} in {where}: {_snippet(text, match)}"))
    return problems


#: Maths typed in ASCII in a table cell or caption: >=, <=, log2(, max_i, sqrt(, n^O(...), ε written eps=.
ASCII_MATHS = re.compile(r"(?<![<>=!])(?:>=|<=)(?![<>=])|\blog2\(|\b(?:max|min|sum)_[a-z]\b|\bsqrt\(")
#: A code name a reader should not meet in a caption, alt text or legend: snake_case identifiers,
#: keyword arguments (eps=0.05), dotted module paths (dtcore.find).
CODE_NAME = re.compile(r"(?<![\w\\])[a-z][a-z0-9]*_[a-z0-9_]+\b|\b[a-z_]+=[\w.]+|\bdtcore\.\w+")
#: Words about how the book was built, which a chapter's prose should leave to the appendix
#: "Reproducing this book".
BUILD_WORDS = re.compile(r"\bpapermill\b|\bmake (?:full|book|test)\b|\bCI\b|_build/|\bthis run took\b|"
                         r"\bper-cell\b|\bnbmake\b|\bjupyter-book\b", re.I)


def _prose_texts(main: Tag) -> list[str]:
    """The page's own prose: paragraphs and list items outside code cells, outputs and maths."""
    out = []
    for block in main.find_all(["p", "li"]):
        if _inside(block, _is_output) or _inside(block, lambda t: "cell_input" in _classes(t)):
            continue
        out.append(_text_without_math(block))
    return out


def reader_text_problems(soup: BeautifulSoup, page: str) -> list[Problem]:
    """ASCII maths in tables and captions, code names in captions and alt text, and (on a chapter)
    build words in the prose."""
    main = _main(soup)
    problems = []
    for where, text in _figure_texts(main):
        match = ASCII_MATHS.search(text)
        if match:
            problems.append(Problem(page, "ASCII maths", f"in {where}: {_snippet(text, match)}"))
        if where != "table cell":
            match = CODE_NAME.search(text)
            if match:
                problems.append(Problem(page, "code name", f"in {where}: {_snippet(text, match)}"))
    if re.match(r"0\d_", page):
        for text in _prose_texts(main):
            match = BUILD_WORDS.search(text)
            if match:
                problems.append(Problem(page, "build word in a chapter", _snippet(text, match)))
    return problems


def page_problems(
    html: str, page: str, page_path: Path | None = None, numbers: set[tuple[str, str]] | None = None
) -> list[Problem]:
    """Every check on one page's HTML (``numbers``: the book's box numbers, see :func:`numbering_problems`)."""
    soup = BeautifulSoup(html, "html.parser")
    found = (
        raw_markup_problems(soup, page)
        + raw_tex_problems(soup, page)
        + reference_problems(soup, page, page_path)
        + nan_problems(soup, page)
        + output_problems(soup, page)
        + leftover_output_problems(soup, page)
        + table_problems(soup, page)
        + number_format_problems(soup, page)
        + label_problems(soup, page)
        + caption_problems(soup, page)
        + numbering_problems(soup, page, numbers)
        + reader_text_problems(soup, page)
    )
    return list(dict.fromkeys(found))  # one line per distinct problem, in page order


# --------------------------------------------------------------------------------------------
# Unit tests of the checks on synthetic pages: each check can fail
# --------------------------------------------------------------------------------------------

CLEAN_PAGE = """<html><body><main>
<p>Let <span class="math notranslate nohighlight">\\(\\varepsilon\\)</span> be small;
see <a class="reference internal" href="#lemma-1">Lemma 1</a>.</p>
<div class="proof lemma admonition" id="lemma-1"><p><span class="caption-number">Lemma 1 </span></p></div>
<div class="cell tag_hide-input"><div class="cell_input"><pre>ax.set_xlabel("$\\\\varepsilon$")  # ```{prf:x}</pre></div>
<div class="cell_output"><div class="output text_markdown"><p>All 12 checks hold.</p></div>
<div class="output text_html"><table><tr><th>bound</th><th>seconds</th><th>\\(\\eta_1\\)</th></tr>
<tr><td>0.5</td><td>28.7</td><td>1.2e-12</td></tr></table></div></div></div>
<figure><img alt="a curve" src="x.png"><figcaption><span class="caption-number">Fig. 1 </span>
<span class="caption-text">Below <a href="#lemma-1">Lemma 1</a> (paper Lemma 4.4) and the paper's Theorem 10.</span></figcaption></figure>
</main></body></html>"""


def test_clean_page_has_no_problem() -> None:
    assert page_problems(CLEAN_PAGE, "clean") == []


def test_build_words_are_flagged_on_chapters_only() -> None:
    prose = "<html><body><main><p>Re-run it with papermill; this run took 38 seconds.</p></main></body></html>"
    assert [p.kind for p in page_problems(prose, "03_stochastic_trees.html")] == ["build word in a chapter"]
    assert page_problems(prose, "appendix_reproducing.html") == []


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
        ("<table><tr><th>bound</th></tr><tr><td>max_i Inf_i >= Var / log2 s</td></tr></table>", "ASCII maths"),
        ('<figure><img alt="error of label_fn" src="x.png"></figure>', "code name"),
        ("<figure><figcaption>Runs at eps=0.05.</figcaption></figure>", "code name"),
    ],
)
def test_each_check_can_fail(snippet: str, kind: str) -> None:
    problems = page_problems(f"<html><body><main>{snippet}</main></body></html>", "synthetic")
    assert kind in {p.kind for p in problems}, problems


# One page per leftover kind of issue 26: each must be flagged, with the kind named.
LEFTOVER_PAGES = {
    "bare True/False output": '<div class="cell_output"><div class="output text_plain"><pre>True</pre></div></div>',
    "dict/list repr output": (
        '<div class="cell_output"><div class="output text_plain"><pre>{\'counts\': [3, 1], \'n\': 4}</pre></div></div>'
    ),
    "print output": '<div class="cell_output"><div class="output stream highlight-myst-ansi"><pre>seed=0, n=12</pre></div></div>',
    "snake_case header": '<div class="cell_output"><table><tr><th>osss_min_ratio</th></tr><tr><td>0.5</td></tr></table></div>',
    "plain-text maths in a header": "<table><tr><th>bound 2^(D+1)</th></tr><tr><td>8</td></tr></table>",
    "backtick in a caption": (
        '<figure><img src="x.png" alt="f"><figcaption><span class="caption-text">Error against `reps`.'
        "</span></figcaption></figure>"
    ),
    "over-precise seconds": (
        '<div class="cell_output"><table><thead><tr><th></th><th>fault</th><th>seconds</th></tr></thead>'
        '<tbody><tr><th>0</th><td>ch1</td><td>28.700000</td></tr></tbody></table></div>'
    ),
    "raw exponent format": '<div class="cell_output"><table><tr><td>within 0.0e+00</td></tr></table></div>',
    "internal label shown": "<table><tr><td>thm-bglt-1</td><td>alg-bglt-minibatch</td></tr></table>",
    "not the book's numbering": (
        '<div class="proof lemma admonition" id="lem-a"><p class="admonition-title">'
        '<span class="caption-number">Lemma 4.6 </span> (J)</p></div>'
        '<figure><img src="x.png" alt="Fig. 1.6: the bound of Theorem 3"><figcaption>'
        '<span class="caption-text">Below Lemma 5.2.</span></figcaption></figure>'
    ),
}


@pytest.mark.parametrize("kind", sorted(LEFTOVER_PAGES))
def test_each_leftover_kind_is_flagged(kind: str) -> None:
    problems = page_problems(f"<html><body><main>{LEFTOVER_PAGES[kind]}</main></body></html>", "fixture")
    assert kind in {p.kind for p in problems}, problems
    assert all(p.kind == kind for p in problems), problems  # each fixture shows its kind only


def test_exponents_in_e_notation() -> None:
    flagged = ["0.0e+00", "1.2e-51", "3e-57", "2.0E+00", "1e-120"]
    passing = ["1e-12", "2.5e-3", "1.0e+06"]
    for value in flagged:
        assert E_FORMAT.search(value), value
    for value in passing:
        assert not E_FORMAT.search(value), value


def test_significant_digits() -> None:
    assert significant_digits("28.700000") == 8
    assert significant_digits("28.7") == 3
    assert significant_digits("0.01234") == 4
    assert significant_digits("1,200") == 2
    assert significant_digits("—") == 0


def test_the_paper_numbering_passes_when_it_says_so() -> None:
    box = '<div class="proof theorem admonition"><p><span class="caption-number">Theorem 5.1 </span></p></div>'
    ok = f"{box}<table><tr><td>Theorem 5.1 (paper Thm 10)</td><td>the paper's Lemma 4.4</td></tr></table>"
    bad = f"{box}<table><tr><td>Theorem 1 (paper Thm 10)</td></tr></table>"
    assert page_problems(f"<html><body><main>{ok}</main></body></html>", "s") == []
    kinds = [p.kind for p in page_problems(f"<html><body><main>{bad}</main></body></html>", "s")]
    assert kinds == ["not the book's numbering"]
    # the book's numbers come from every page: another page's box counts
    assert page_problems(f"<html><body><main>{bad}</main></body></html>", "s", numbers={("theorem", "1")}) == []
    named = (
        "<table><tr><th>paper result</th><th>book box</th></tr><tr><td>Theorem 3</td><td>Theorem 5.1 (BGLT 2020)</td></tr>"
        "<tr><td>OSSS05</td><td>Lemma E.2</td></tr><tr><td>pairs of BDM20 Lemma 9</td><td>—</td></tr></table>"
    )
    assert page_problems(f"<html><body><main>{box}{named}</main></body></html>", "s") == []


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
    pages = book_pages(built_book)
    numbers = set().union(*(book_numbers(BeautifulSoup(p.read_text(errors="replace"), "html.parser")) for p in pages))
    for path in pages:
        problems += page_problems(path.read_text(errors="replace"), path.name, path, numbers)
    assert not problems, f"{len(problems)} problems a reader would see:\n" + "\n".join(map(str, problems))


def test_a_table_with_a_paper_result_column_cites_the_paper_in_every_cell() -> None:
    table = ("<table><tr><th>paper result</th><th>book box</th><th>note</th></tr>"
             "<tr><td>Lemma B.7</td><td>Lemma 2.6</td><td>Lemma B.3 would need b = 10⁵</td></tr></table>")
    assert page_problems(f"<html><body><main>{table}</main></body></html>", "s", numbers={("lemma", "2.6")}) == []
    headerless = "<table><tr><td>note</td></tr><tr><td>Lemma B.3 would need b = 10⁵</td></tr></table>"
    kinds = [p.kind for p in page_problems(f"<html><body><main>{headerless}</main></body></html>", "s")]
    assert kinds == ["not the book's numbering"]


def test_ledger_verdicts_agree_with_the_rows_of_this_build(built_book: Path) -> None:
    """Every ledger entry on a page that ran: the verdict its rows support is the ledger's, and its
    rows raise no problem (two verdicts, a refutation counted twice, a failing counted row)."""
    from dtbook import ledger

    findings = json.loads((built_book / "_static" / "ledger.json").read_text())
    problems = []
    for entry_id, f in findings.items():
        if not f["page"]:
            continue
        problems += f["problems"]
        if not ledger.agrees(f["declared"], f["found"]):
            problems.append(f"{entry_id}: declared {f['declared']!r}, its rows support {f['found']!r}")
    assert not problems, "\n".join(problems)


def test_every_blueprint_node_links_to_an_existing_anchor(built_book: Path) -> None:
    glance = built_book / "book" / "glance.html"
    soup = BeautifulSoup(glance.read_text(errors="replace"), "html.parser")
    graphs = soup.find_all("svg", class_="blueprint")
    assert len(graphs) >= 5, f"{len(graphs)} blueprints on the glance page"
    broken = []
    for graph in graphs:
        nodes = graph.find_all("a", class_="bp-node")
        assert nodes, graph.get("id")
        for node in nodes:
            target, _, anchor = node["href"].partition("#")
            path = (glance.parent / target).resolve() if target else glance
            if not path.is_file() or (anchor and anchor not in _ids_of(path)):
                broken.append(f"{graph.get('id')}: {node.get('data-entry')} -> {node['href']}")
    assert not broken, "\n".join(broken)
