# Two entry points: `make book` and `make test`. Both create .venv from requirements.txt if needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: book test clean venv

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -c "import os, sysconfig; open(os.path.join(sysconfig.get_paths()['purelib'], 'dtcore-root.pth'), 'w').write(os.getcwd() + '\\n')"
	touch $(STAMP)

book: $(STAMP)
	$(VENV)/bin/jupyter-book build . --builder html -W -n --keep-going
	@echo "Book written to _build/html/index.html"

test: $(STAMP)
	$(PY) -m pytest -n $(JOBS) --dist loadgroup --nbmake --nbmake-timeout=900 tests book

clean:
	rm -rf _build results
