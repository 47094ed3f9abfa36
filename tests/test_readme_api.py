"""The README's section "Use dtcore from your own code and from scikit-learn" runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## Use dtcore from your own code and from scikit-learn"


def _blocks() -> list[str]:
    text = README.read_text()
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def test_section_has_code():
    assert len(_blocks()) >= 3


@pytest.mark.parametrize("k", range(3))
def test_readme_block_runs(k, capsys):
    code = _blocks()[k]
    exec(compile(code, f"README block {k}", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.strip()
