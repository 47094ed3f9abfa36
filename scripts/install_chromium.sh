#!/usr/bin/env bash
# Install headless Chromium from Debian's packages for tests/test_browser.py.
# Needs root (CI runs as root); on a desktop run it with sudo. Does nothing if Chromium is present.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    echo "chromium already installed: $(command -v chromium || command -v chromium-browser)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install_chromium.sh: needs root for apt-get (try: sudo $0)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# fonts-dejavu-core: a font for page text; MathJax brings its own web fonts.
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "installed $(chromium --version)"
