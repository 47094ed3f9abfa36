"""A reader's check: the built book in headless Chromium with no network (issue 14, item 8).

The book is served from ``_build/html`` on 127.0.0.1 and every page of the table of contents is
loaded in headless Chromium, whose resolver maps every host but 127.0.0.1 to "not found" and
whose proxy is a closed port, so nothing outside this machine can be reached. For each page the
test asserts that

- MathJax (served from ``_static/mathjax``) loaded and typeset every formula: each ``.math``
  element holds an ``mjx-container``, no ``\\(``, ``\\[`` or ``$$`` is left in the rendered text,
  and MathJax reported no TeX error;
- every image loaded (``naturalWidth > 0``) and the local server answered every request
  (no 404, e.g. for a MathJax font);
- the page asked for nothing outside 127.0.0.1;
- no figure or table caption shows raw maths (``$``, ``\\(``, ``\\[``) once MathJax is done;
- the page does not scroll sideways, at a desktop width (1,280 px) and a phone width (420 px):
  anything wider than the text column (a wide table, a long display equation) must scroll inside
  its own box (``_static/reader.css``).

Every screenshot is taken after MathJax's typesetting promise has resolved and its fonts have
loaded (``MathJax.startup.promise``, then ``MathJax.typesetPromise()`` for anything added since),
so a caption never shows half-typeset maths. Screenshots are kept as build artefacts under
``_build/screenshots``: the first screen of each page and every figure as it appears at page width
(1,280-px window), and the first screen of each page at 420 px (``*-420-top.png``).

Chromium's profile lives in a temporary folder that is removed only after the whole process group
has exited, with retries (a crash handler may still write into it for a moment).

Chromium comes from Debian's packages: ``scripts/install_chromium.sh`` installs it (``.ci/run``
calls it on CI). Without Chromium the test skips and says so. The browser is driven through the
Chrome DevTools protocol over a WebSocket opened with tornado, which the environment already has.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.test_html import BUILD, book_pages, built_book  # noqa: F401  (fixture)

SCREENSHOTS = BUILD / "screenshots"
WINDOW = (1280, 900)
#: The widths at which no page may scroll sideways: desktop and phone.
WIDTHS = (1280, 420)
#: A paper chapter a reader can hold in mind: its height at 1,280 px with every dropdown closed.
MAX_CHAPTER_HEIGHT = 15_000


def is_paper_chapter(page: str) -> bool:
    """The five papers' chapters (book/01_… to book/05_…), the pages the height limit is for."""
    return bool(re.match(r"(.*/)?0[1-5]_[a-z_]+\.html$", page))
INSTALL_HINT = "run `sudo scripts/install_chromium.sh` (Debian package chromium) to enable it"
PAGE_TIMEOUT_S = 120.0


def find_chromium() -> str | None:
    """Path of a Chromium binary: $CHROMIUM, then `chromium` or `chromium-browser` on PATH."""
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


# --------------------------------------------------------------------------------------------
# A local, logging HTTP server for _build/html
# --------------------------------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the book; records (path, status) of every request instead of printing it."""

    log: list[tuple[str, int]]

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self.log.append((self.path, int(code) if str(code).isdigit() else 0))

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass


@functools.lru_cache(maxsize=None)
def _handler_class(directory: str) -> type[_QuietHandler]:
    class Handler(_QuietHandler):
        log: list[tuple[str, int]] = []

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=directory, **kwargs)

    return Handler


@pytest.fixture(scope="module")
def book_server(built_book: Path) -> Iterator[tuple[str, list[tuple[str, int]]]]:  # noqa: F811
    handler = _handler_class(str(built_book))
    handler.log.clear()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler.log
    finally:
        server.shutdown()
        server.server_close()


# --------------------------------------------------------------------------------------------
# A minimal Chrome DevTools protocol client
# --------------------------------------------------------------------------------------------


class DevTools:
    """One WebSocket to the browser, one page session attached to it (flattened protocol)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, url: str) -> DevTools:
        from tornado.websocket import websocket_connect

        return cls(await websocket_connect(url, max_message_size=512 * 2**20))

    async def _read(self) -> None:
        while True:
            message = await self.connection.read_message()
            if message is None:
                for future in self.pending.values():
                    if not future.done():
                        future.set_exception(ConnectionError("DevTools connection closed"))
                return
            data = json.loads(message)
            if "id" in data and data["id"] in self.pending:
                self.pending.pop(data["id"]).set_result(data)
            else:
                self.events.append(data)

    async def send(self, method: str, timeout: float = PAGE_TIMEOUT_S, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        await self.connection.write_message(json.dumps(message))
        reply = await asyncio.wait_for(future, timeout)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    async def wait_event(self, method: str, since: int, timeout: float = PAGE_TIMEOUT_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.events[since:]:
                if event.get("method") == method:
                    return event
            await asyncio.sleep(0.05)
        raise TimeoutError(f"no {method} within {timeout} s")

    def close(self) -> None:
        self.reader.cancel()
        self.connection.close()


def launch_chromium(binary: str, profile: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start headless Chromium with no network but loopback; return it and its DevTools URL."""
    args = [
        binary,
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-crash-reporter",  # no crash handler outliving the browser in the profile
        "--disable-breakpad",
        "--hide-scrollbars",
        "--font-render-hinting=none",
        # Network off: every host but 127.0.0.1 resolves to nothing, and any proxied request
        # goes to a closed port.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=127.0.0.1",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        "about:blank",
    ]
    # its own process group, so that stop_chromium ends the renderer and helper processes too
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    port_file = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if port_file.is_file():
            lines = port_file.read_text().split()
            if len(lines) >= 2:
                return process, f"ws://127.0.0.1:{lines[0]}{lines[1]}"
        if process.poll() is not None:
            raise RuntimeError(f"chromium exited with {process.returncode} before opening DevTools")
        time.sleep(0.1)
    stop_chromium(process)
    raise TimeoutError("chromium did not open its DevTools port within 60 s")


def stop_chromium(process: subprocess.Popen[bytes]) -> None:
    """End Chromium's whole process group and wait for it, so nothing writes to its profile after."""
    import os
    import signal

    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 20)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        deadline = time.monotonic() + wait  # the group's other members exit after the leader
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


def remove_profile(profile: Path, attempts: int = 40) -> None:
    """Remove Chromium's profile folder once nothing writes into it any more.

    Called after :func:`stop_chromium` has waited for the process group to exit. A straggler (a
    helper process re-parented away from the group) may still create files for a moment, which
    makes ``rmtree`` fail with "Directory not empty"; each retry waits a little longer (up to
    about 20 s in all). A folder that still cannot be removed is renamed aside, so that the test
    itself never fails on its teardown; it is in the temporary directory either way.
    """
    import shutil

    for attempt in range(attempts):
        try:
            shutil.rmtree(profile)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(min(1.0, 0.05 * (attempt + 1)))
    shutil.rmtree(profile, ignore_errors=True)
    if profile.exists():
        profile.rename(profile.with_name(f"{profile.name}-stale-{os.getpid()}-{time.monotonic_ns()}"))


# What the page reports once MathJax has finished and every image has settled.
PAGE_PROBE = r"""
(async () => {
  const wait = (ms) => new Promise(r => setTimeout(r, ms));
  const t0 = performance.now();
  const hasMath = document.querySelector('.math') !== null;
  while (hasMath && !(window.MathJax && MathJax.startup && MathJax.startup.promise)
         && performance.now() - t0 < 30000) await wait(100);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  for (const img of document.images) img.loading = 'eager';
  await Promise.race([wait(30000), Promise.all([...document.images].map(i => i.complete ? 0 :
      new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })))]);
  await document.fonts.ready;
  const maths = [...document.querySelectorAll('.math')];
  const untypeset = maths.filter(m => !m.querySelector('mjx-container'))
                         .map(m => m.textContent.trim().slice(0, 80));
  const raw = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, parent = node.parentElement;
    if (!parent || parent.closest('script, style, pre, code, textarea, mjx-container, mjx-assistive-mml')) continue;
    if (/\\\(|\\\[|\$\$/.test(node.textContent)) raw.push(node.textContent.trim().slice(0, 80));
  }
  const errors = [...document.querySelectorAll('mjx-merror')]
      .map(e => e.getAttribute('data-mjx-error') || e.textContent).slice(0, 20);
  const main = document.querySelector('main, [role=main]') || document.body;
  const box = main.getBoundingClientRect();
  // captions with raw maths left after typesetting
  const rawCaptions = [];
  for (const cap of document.querySelectorAll('figcaption, caption, .caption-text')) {
    let text = '';
    const w = document.createTreeWalker(cap, NodeFilter.SHOW_TEXT);
    while (w.nextNode()) {
      const p = w.currentNode.parentElement;
      if (p && !p.closest('mjx-container, mjx-assistive-mml, code, pre')) text += w.currentNode.textContent;
    }
    if (/\$|\\\(|\\\[/.test(text)) rawCaptions.push(text.trim().slice(0, 100));
  }
  // sideways scroll: the page itself, and anything in the article wider than the window that no
  // scrolling box inside the article holds
  const article = document.querySelector('article.bd-article') || main;
  // the emulated device's width: a phone's layout viewport grows to fit content that overflows
  const W = Math.min(innerWidth, screen.width || innerWidth);
  const overflow = [];
  for (const el of article.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= W + 1) continue;
    let held = false;
    for (let a = el.parentElement; a && a !== article; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= W + 1) {
        held = true; break;
      }
    }
    if (!held) overflow.push(`${el.tagName.toLowerCase()} to ${Math.round(r.right)} px: ` +
                             (el.textContent || '').trim().slice(0, 50));
    if (overflow.length >= 10) break;
  }
  const pageWidth = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
  const images = [...document.images].map((i, k) => {
    const r = i.getBoundingClientRect();
    const holder = i.closest('figure') || i;
    const h = holder.getBoundingClientRect();
    return {index: k, src: i.getAttribute('src'), loaded: i.complete && i.naturalWidth > 0,
            naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,
            shownWidth: r.width, shownHeight: r.height,
            clip: {x: h.left + scrollX, y: h.top + scrollY, width: h.width, height: h.height}};
  });
  // tables wider than the text column (cut off or pushing it wider), dropdowns closed
  const column = article.getBoundingClientRect();
  const wideTables = [...article.querySelectorAll('table')].filter(t => {
    if (t.closest('details:not([open])')) return false;
    const r = t.getBoundingClientRect();
    const verification = [...t.querySelectorAll('th')].some(h => /margin/i.test(h.textContent));
    const boxed = t.parentElement && getComputedStyle(t.parentElement).overflowX !== 'visible' &&
                  t.parentElement.getBoundingClientRect().right <= column.right + 1;
    // a verification table must fit the column whole; another table may scroll in its own box
    return r.width > 0 && (r.right > column.right + 1 || t.scrollWidth > t.clientWidth + 1) &&
           (verification || !boxed);
  }).map(t => `${Math.round(t.getBoundingClientRect().width)} px in ${Math.round(column.width)} px: ` +
               (t.querySelector('th, td') || t).textContent.trim().slice(0, 40));
  // blueprints: every node drawn, every node a link
  const blueprints = [...document.querySelectorAll('svg.blueprint')].map(svg => {
    const r = svg.getBoundingClientRect();
    return {id: svg.id, width: r.width, height: r.height, nodes: svg.querySelectorAll('a.bp-node').length,
            hrefs: [...svg.querySelectorAll('a.bp-node')].map(a => a.href.baseVal || a.getAttribute('href'))};
  });
  return {title: document.title, hasMath, wideTables, blueprints, mathjaxVersion: (window.MathJax && MathJax.version) || null,
          formulas: maths.length, containers: document.querySelectorAll('mjx-container').length,
          untypeset, raw, errors, images, contentWidth: box.width, rawCaptions, overflow,
          pageWidth, windowWidth: W, articleScroll: article.scrollWidth - article.clientWidth,
          height: document.documentElement.scrollHeight};
})()
"""


@dataclass
class PageReport:
    """What one page showed in the browser."""

    name: str
    seconds: float
    probe: dict[str, Any]
    outside_requests: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    #: The probe at each window width (px), for the sideways-scroll check.
    widths: dict[int, dict[str, Any]] = field(default_factory=dict)

    def problems(self) -> list[str]:
        p = self.probe
        found = []
        if p["hasMath"] and not p.get("mathjaxVersion"):
            found.append("MathJax did not load")
        found += [f"formula not typeset: {t!r}" for t in p["untypeset"][:10]]
        found += [f"raw TeX in the rendered text: {t!r}" for t in p["raw"][:10]]
        found += [f"MathJax error: {e!r}" for e in p["errors"]]
        found += [f"image did not load: {i['src']}" for i in p["images"] if not i["loaded"]]
        found += [f"request outside 127.0.0.1: {u}" for u in self.outside_requests[:10]]
        found += [f"raw maths in a caption: {t!r}" for t in p.get("rawCaptions", [])[:10]]
        found += self.width_problems()
        found += [f"table wider than the text column: {t}" for t in p.get("wideTables", [])[:10]]
        found += [f"blueprint {b['id']} did not render ({b['width']:.0f} × {b['height']:.0f} px, {b['nodes']} nodes)"
                  for b in p.get("blueprints", []) if b["width"] < 50 or b["height"] < 30 or b["nodes"] == 0]
        if is_paper_chapter(self.name) and p["height"] > MAX_CHAPTER_HEIGHT:
            found.append(f"{p['height']:,} px tall at {WINDOW[0]} px with its dropdowns closed "
                         f"(a paper chapter holds at most {MAX_CHAPTER_HEIGHT:,})")
        return [f"{self.name}: {f}" for f in found]

    def width_problems(self) -> list[str]:
        """Sideways scrolling at each width the page was loaded at."""
        found = []
        for width, p in sorted(self.widths.items(), reverse=True):
            if p["pageWidth"] > p["windowWidth"] + 1:
                found.append(f"at {width} px the page scrolls sideways ({p['pageWidth']} px wide)")
            if p["articleScroll"] > 1:
                found.append(f"at {width} px the text column scrolls sideways by {p['articleScroll']} px")
            found += [f"at {width} px wider than the window, in no scrolling box: {o}" for o in p["overflow"]]
        return found


# Resolves once MathJax has typeset everything on the page (including maths that came into view or
# was added since startup) and every font it asked for has loaded, two frames later.
MATH_SETTLED = r"""
(async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
    if (MathJax.typesetPromise) await MathJax.typesetPromise();
  }
  await document.fonts.ready;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return [...document.querySelectorAll('.math')].filter(m => !m.querySelector('mjx-container')).length;
})()
"""


async def settle_maths(devtools: DevTools) -> int:
    """Wait for MathJax's typesetting promise and its fonts; return how many formulas are untypeset."""
    result = await devtools.send("Runtime.evaluate", expression=MATH_SETTLED, awaitPromise=True, returnByValue=True)
    if "exceptionDetails" in result:
        raise RuntimeError(f"waiting for MathJax failed: {result['exceptionDetails']}")
    return int(result["result"]["value"])


async def _save_png(devtools: DevTools, path: Path, clip: dict[str, float]) -> Path:
    # Scroll the region into view first (below the theme's fixed header): capturing beyond the
    # viewport re-lays out the whole page for every shot, which is slow on long chapters.
    await devtools.send("Runtime.evaluate", expression=f"window.scrollTo(0, {max(0.0, clip['y'] - 150)})")
    await settle_maths(devtools)  # the maths in view is typeset and drawn before the shot
    shot = await devtools.send(
        "Page.captureScreenshot",
        format="png",
        captureBeyondViewport=clip["height"] > WINDOW[1],
        clip={**clip, "scale": 1},
    )
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


async def _load(devtools: DevTools, url: str) -> dict[str, Any]:
    """Navigate to ``url``, wait for the load event and MathJax, and return the page probe."""
    del devtools.events[:]  # keep only this page's events
    await devtools.send("Page.navigate", url=url)
    await devtools.wait_event("Page.loadEventFired", 0)
    await settle_maths(devtools)
    result = await devtools.send("Runtime.evaluate", expression=PAGE_PROBE, awaitPromise=True, returnByValue=True)
    if "exceptionDetails" in result:
        raise RuntimeError(f"{url}: probe failed: {result['exceptionDetails']}")
    return result["result"]["value"]


async def _set_width(devtools: DevTools, width: int) -> None:
    await devtools.send(
        "Emulation.setDeviceMetricsOverride",
        width=width, height=WINDOW[1], deviceScaleFactor=1, mobile=width < 600,
        screenWidth=width, screenHeight=WINDOW[1],
    )


async def check_pages(binary: str, base_url: str, pages: list[str], shots: Path = SCREENSHOTS) -> list[PageReport]:
    """Load each page (path relative to the site root) and probe it; take its screenshots.

    At the desktop width every page is probed in full and its figures are photographed; then the
    window narrows to each other width of :data:`WIDTHS` (the page re-lays out; its maths need
    no second typesetting) for the sideways-scroll check and a shot of its first screen.
    """
    shots.mkdir(parents=True, exist_ok=True)
    for old in shots.glob("*.png"):
        old.unlink()
    reports: list[PageReport] = []
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
    try:
        process, url = launch_chromium(binary, profile)
        try:
            devtools = await DevTools.connect(url)
        except BaseException:
            stop_chromium(process)
            raise
        try:
            target = await devtools.send("Target.createTarget", url="about:blank")
            attached = await devtools.send("Target.attachToTarget", targetId=target["targetId"], flatten=True)
            devtools.session = attached["sessionId"]
            await devtools.send("Page.enable")
            await devtools.send("Network.enable")
            await _set_width(devtools, WINDOW[0])
            for page in pages:
                start = time.perf_counter()
                probe = await _load(devtools, f"{base_url}/{page}")
                outside = [
                    e["params"]["request"]["url"]
                    for e in devtools.events
                    if e.get("method") == "Network.requestWillBeSent"
                    and not re.match(r"(https?://127\.0\.0\.1[:/]|data:|blob:|about:)", e["params"]["request"]["url"])
                ]
                report = PageReport(page, time.perf_counter() - start, probe, outside, widths={WINDOW[0]: probe})
                stem = Path(page).stem
                report.screenshots.append(
                    await _save_png(devtools, shots / f"{stem}-top.png",
                                    {"x": 0, "y": 0, "width": WINDOW[0], "height": WINDOW[1]})
                )
                taken = set()
                for image in probe["images"]:
                    clip = image["clip"]
                    key = (round(clip["x"]), round(clip["y"]))
                    if clip["width"] < 20 or clip["height"] < 20 or key in taken:
                        continue  # logos and icons; two images in one output share a shot
                    taken.add(key)
                    report.screenshots.append(
                        await _save_png(devtools, shots / f"{stem}-img{image['index']:02d}.png", clip)
                    )
                for width in WIDTHS:  # the same page, narrower: no second load or typesetting
                    if width == WINDOW[0]:
                        continue
                    await _set_width(devtools, width)
                    await settle_maths(devtools)  # two frames: the new layout is in place
                    result = await devtools.send(
                        "Runtime.evaluate", expression=PAGE_PROBE, awaitPromise=True, returnByValue=True
                    )
                    report.widths[width] = result["result"]["value"]
                    report.screenshots.append(
                        await _save_png(devtools, shots / f"{stem}-{width}-top.png",
                                        {"x": 0, "y": 0, "width": width, "height": WINDOW[1]})
                    )
                    await _set_width(devtools, WINDOW[0])
                reports.append(report)
        finally:
            devtools.close()
            stop_chromium(process)
    finally:
        remove_profile(profile)
    return reports


def test_every_page_renders_offline(book_server: tuple[str, list[tuple[str, int]]], built_book: Path) -> None:  # noqa: F811
    binary = find_chromium()
    if binary is None:
        pytest.skip(f"headless Chromium not found; {INSTALL_HINT}")
    base_url, requests = book_server
    pages = [str(p.relative_to(built_book)) for p in book_pages(built_book)]
    reports = asyncio.run(check_pages(binary, base_url, pages))

    summary = {
        r.name: {
            "seconds": round(r.seconds, 1),
            "formulas": r.probe["formulas"],
            "typeset": r.probe["containers"],
            "images": len(r.probe["images"]),
            "content_width_px": round(r.probe["contentWidth"]),
            "page_width_px": {w: p["pageWidth"] for w, p in r.widths.items()},
            "height_px": {w: p["height"] for w, p in r.widths.items()},
            "screenshots": [s.name for s in r.screenshots],
        }
        for r in reports
    }
    (SCREENSHOTS / "summary.json").write_text(json.dumps(summary, indent=1))

    problems = [p for r in reports for p in r.problems()]
    missing = sorted({path for path, status in requests if status >= 400 and not path.endswith("favicon.ico")})
    problems += [f"server answered an error for {path}" for path in missing]
    assert sum(r.probe["formulas"] for r in reports) > 0, "no formula found in the whole book"
    assert not problems, f"{len(problems)} problems in the browser:\n" + "\n".join(problems)


FIXTURE_PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1">
<style>body {{ margin: 0 }} article {{ display: block; width: 100%; }}</style></head><body><main>
<article class="bd-article"><p>Text.</p>{body}</article></main></body></html>"""


#: One-page fixtures for the browser checks, with what each must (or must not) raise.
FIXTURES = {
    "boxed.html": ('<div style="overflow-x: auto"><table><tr><td style="min-width: 900px">wide, in its box</td>'
                   "</tr></table></div>", []),
    "unboxed.html": ('<table><tr><td style="min-width: 900px">wide, no box</td></tr></table>',
                     ["at 420 px wider than the window, in no scrolling box"]),
    "caption.html": ("<figure><figcaption>Error against $\\eta$.</figcaption></figure>", ["raw maths in a caption"]),
    "narrow.html": ('<style>article.bd-article { width: 600px !important }</style><table><tr>'
                    '<td style="min-width: 800px">a table wider than its column</td></tr></table>',
                    ["table wider than the text column"]),
    "verification.html": ('<style>article.bd-article { width: 600px !important }</style><div style="overflow-x: auto">'
                          '<table><tr><th>statement</th><th>margin</th></tr><tr><td style="min-width: 800px">x</td>'
                          '<td>0.5</td></tr></table></div>', ["table wider than the text column"]),
    "01_tall_chapter.html": ('<div style="height: 16000px">a long chapter</div>', ["px tall at 1280 px"]),
    "blueprint.html": ('<svg class="blueprint" id="blueprint-x" width="0" height="0"></svg>', ["did not render"]),
}


def test_width_and_caption_checks_can_fail(tmp_path: Path) -> None:
    """One-page sites in the browser (one Chromium for all): a wide table in a scrolling box passes
    at 420 px, one outside any box is flagged, and so is a caption with raw maths."""
    binary = find_chromium()
    if binary is None:
        pytest.skip(f"headless Chromium not found; {INSTALL_HINT}")
    site = tmp_path / "site"
    site.mkdir()
    for name, (body, _) in FIXTURES.items():
        (site / name).write_text(FIXTURE_PAGE.format(body=body))
    handler = _handler_class(str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        reports = asyncio.run(check_pages(binary, base, list(FIXTURES), shots=tmp_path / "shots"))
    finally:
        server.shutdown()
        server.server_close()
    for report in reports:
        problems, expected = report.problems(), FIXTURES[report.name][1]
        assert set(report.widths) == set(WIDTHS)
        for text in expected:
            assert any(text in p for p in problems), (report.name, problems)
        if not expected:
            assert problems == [], (report.name, problems)


def test_profile_removal_outlasts_a_late_writer(tmp_path: Path) -> None:
    """A process still writing into the profile for a moment does not fail the teardown."""
    profile = tmp_path / "profile"
    (profile / "Default").mkdir(parents=True)
    stop = time.monotonic() + 0.6

    def write() -> None:
        k = 0
        while time.monotonic() < stop:
            try:
                (profile / "Default").mkdir(parents=True, exist_ok=True)
                (profile / "Default" / f"f{k}").write_text("x")
            except OSError:
                pass
            k += 1

    writer = threading.Thread(target=write)
    writer.start()
    remove_profile(profile)
    writer.join()
    remove_profile(profile)  # whatever the writer left after the first removal
    assert not profile.exists()
