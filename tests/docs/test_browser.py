"""The built documentation site, opened in a real headless Chromium.

Run it on a built site (the distribution's chromium and chromium-driver packages installed):

    python -m sphinx -W -b html docs docs/_build/html
    RANKWISE_DOCS_HTML=docs/_build/html python -m pytest tests/docs/test_browser.py

It checks that the pages every reader meets render (their heading and title, text, the theme's
CSS, formulas typeset by the site's own MathJax, images, no console error), that every page
reached from index.html shows no Sphinx error marker, no formula wider than the page, no broken
image, that the search finds the nDCG page and nothing for a nonsense word (from the URL and
typed into the header's search field), that every link and resource of the site names a file
that exists and an id that the target page holds, that external links are well-formed URLs,
and that every page of the build is reachable.

The site is served from its directory on 127.0.0.1 for the time of the test. Nothing is fetched
from the network: chromedriver is the one on PATH (Selenium Manager, which would download one, is
never asked), external links are only checked to be well-formed, and a page that needs the
network to render (a CDN's MathJax, a web font) fails here. With RANKWISE_DOCS_SCREENSHOTS=<dir>
the home page and the nDCG page are saved there as PNG files (1280 x 900 CSS pixels: the first
screen, and the whole page as *-full.png).
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import pytest

SITE_ENV = "RANKWISE_DOCS_HTML"
SCREENSHOTS_ENV = "RANKWISE_DOCS_SCREENSHOTS"

if not os.environ.get(SITE_ENV):
    pytest.skip(
        f"{SITE_ENV} is not set: build the site (python -m sphinx -W -b html docs docs/_build/html) and run "
        f"with {SITE_ENV}=docs/_build/html (needs selenium and Chromium with chromedriver)",
        allow_module_level=True,
    )

# Imported only once the site is asked for: selenium is in the docs extra, not the test extra.
from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WINDOW = (1280, 900)
WAIT = 15.0

# The pages every reader meets, each with words one of which its <h1> holds (lower case).
MAIN_PAGES = {
    "index.html": ("rankwise",),
    "getting-started.html": ("start",),
    "ties.html": ("tie",),
    "metrics/index.html": ("metric",),
    "metrics/ndcg.html": ("ndcg",),
    "trec-eval.html": ("trec",),
    "migration/index.html": ("migrat", "library", "libraries", "coming from"),
    "api/index.html": ("api", "reference"),
    "plotting.html": ("plot", "figure", "gallery"),
    "performance.html": ("performance", "benchmark"),
}
# Pages that must show at least one formula, so that a math renderer left out cannot pass unseen.
MATH_PAGES = {"metrics/ndcg.html"}
# What Sphinx writes for itself rather than from a page of docs/; the search page is reached by
# the search form, not a link.
GENERATED = {"search.html", "genindex.html", "py-modindex.html"}
NOT_PAGES = ("_static/", "_sources/", "_images/", "_downloads/", "_modules/", "plot_directive/")
SCREENSHOTS = {"index.html": "home", "metrics/ndcg.html": "metrics-ndcg"}


@dataclass(frozen=True)
class Site:
    """The built site, served from its directory on the loopback interface."""

    root: Path
    base: str

    def url(self, page: str, query: str = "") -> str:
        if not (self.root / page).is_file():
            pytest.fail(f"{page} is not in the built site {self.root}")
        return self.base + quote(page) + query

    def file(self, url: str) -> Path | None:
        """The file a URL of the site names, or None for a URL of another site."""
        if not url.startswith(self.base):
            return None
        return self.root / unquote(urlsplit(url).path).lstrip("/")

    def name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    # Served rather than read from file:// URLs, as a reader (or GitHub Pages) gets it: from a
    # file:// page the search's fetch of each result page, for its summary, is refused.
    root = Path(os.environ[SITE_ENV]).resolve()
    if not (root / "index.html").is_file():
        pytest.fail(f"{SITE_ENV}={root}: no index.html there; build the site into it first")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(root, f"http://127.0.0.1:{server.server_port}/")
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _executable(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def driver() -> Iterator[webdriver.Chrome]:
    # The site was asked for: a missing browser fails the test, CI must not skip it silently.
    browser = _executable("chromium", "chromium-browser", "google-chrome")
    chromedriver = _executable("chromedriver")
    if browser is None or chromedriver is None:
        pytest.fail(
            f"{SITE_ENV} is set but Chromium or chromedriver is not on PATH "
            f"(chromium: {browser}, chromedriver: {chromedriver}); on Debian: "
            "apt-get install chromium chromium-driver"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        # CI runs as root, where Chromium's sandbox cannot start.
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        "--hide-scrollbars",
        "--disable-extensions",
        "--no-first-run",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chrome = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    # The window's size leaves the viewport smaller by the browser's own frame: set the viewport.
    chrome.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WINDOW[0], "height": WINDOW[1], "deviceScaleFactor": 1, "mobile": False},
    )
    chrome.set_page_load_timeout(WAIT)
    chrome.set_script_timeout(WAIT)
    try:
        yield chrome
    finally:
        chrome.quit()


LOADED = """return location.href === arguments[0] && document.readyState === "complete"
    && document.querySelector("main") !== null"""


def _load(driver: webdriver.Chrome, url: str) -> None:
    """Open a page, and wait until it is the page shown and has loaded.

    Now and then on this loaded 2-CPU machine, driver.get returned while the new document was
    still being parsed (its sections, and their ids, not there yet), so it is not trusted alone.
    """
    driver.get(url)
    try:
        WebDriverWait(driver, WAIT).until(lambda d: d.execute_script(LOADED, url))
    except TimeoutException:
        pytest.fail(f"{url} did not load within {WAIT:.0f} s")


def _severe_console(driver: webdriver.Chrome) -> list[str]:
    """The console's errors since the last call (the log is drained by reading it).

    Left out: the /favicon.ico the browser asks every server for by itself, which a page that
    declares no icon never names (an icon a page declares is checked with its other links).
    """
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and not entry["message"].split(" ", 1)[0].endswith("/favicon.ico")
    ]


# --------------------------------------------------------------------------- rendering

# Resolves once MathJax (if the page loads it) has typeset the page, and every image has loaded
# or failed: lazy images are made eager first, or those below the first screen would never load.
SETTLE = """
const done = arguments[arguments.length - 1];
const images = Array.from(document.images);
images.forEach((img) => { img.loading = "eager"; });
const loaded = images.map((img) => img.complete ? Promise.resolve() :
    new Promise((ok) => { img.addEventListener("load", ok); img.addEventListener("error", ok); }));
const typeset = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();
Promise.all([typeset, ...loaded]).then(() => done(null), (error) => done(String(error)));
"""

INSPECT = """
const article = document.querySelector("article.bd-article") || document.querySelector("main");
const h1 = article && article.querySelector("h1");
const outside = (node) => !node.parentElement.closest("pre, code, script, style, mjx-container, .math");
const walker = document.createTreeWalker(article || document.body, NodeFilter.SHOW_TEXT);
let prose = "";
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (outside(node)) prose += node.textContent + " ";
}
const header = document.querySelector(".bd-header");
const root = getComputedStyle(document.documentElement);
return {
  title: document.title,
  h1: h1 ? h1.textContent.replace(/[#¶]\\s*$/, "").trim() : null,
  articleText: article ? article.innerText.trim().length : 0,
  errorMarkers: Array.from(document.querySelectorAll(".system-message, .problematic"))
      .map((e) => e.className + ": " + e.textContent.trim().slice(0, 120)),
  themeColour: root.getPropertyValue("--pst-color-primary").trim(),
  headerDisplay: header ? getComputedStyle(header).display : null,
  bodyFont: getComputedStyle(document.body).fontFamily,
  math: document.querySelectorAll(".math").length,
  mathUnrendered: Array.from(document.querySelectorAll(".math"))
      .filter((e) => !e.querySelector("mjx-container") && !e.matches("mjx-container"))
      .map((e) => e.textContent.trim().slice(0, 80)),
  // A display formula wider than the column is cut off behind a scroll bar: TeX source of each.
  mathOverflow: Array.from(document.querySelectorAll("mjx-container[display=true]"))
      .filter((e) => e.scrollWidth > e.clientWidth + 1)
      .map((e) => {
        const items = window.MathJax && MathJax.startup.document.getMathItemsWithin(e);
        return (items && items.length ? items[0].math : e.textContent).trim().slice(0, 100);
      }),
  mathErrors: Array.from(document.querySelectorAll("mjx-merror"))
      .map((e) => e.getAttribute("data-mjx-error") || e.textContent.slice(0, 80)),
  rawDollars: (prose.match(/\\$\\$|\\$[^\\s$][^$\\n]{0,200}?[^\\s$\\\\]\\$/g) || []).slice(0, 5),
  brokenImages: Array.from(document.images).filter((img) => !(img.complete && img.naturalWidth > 0))
      .map((img) => img.getAttribute("src")),
  images: document.images.length,
  remote: Array.from(document.querySelectorAll("script[src], link[rel=stylesheet][href]"))
      .map((e) => e.getAttribute("src") || e.getAttribute("href"))
      .filter((url) => /^(https?:)?\\/\\//.test(url)),
};
"""


def _content_problems(seen: dict[str, Any], console: list[str]) -> list[str]:
    """What any page of the site must not show."""
    problems = [f"Sphinx error marker {marker!r}" for marker in seen["errorMarkers"]]
    problems += [f"formula not rendered: {text!r}" for text in seen["mathUnrendered"]]
    problems += [f"formula error: {text!r}" for text in seen["mathErrors"]]
    problems += [f"formula wider than the page at {WINDOW[0]} px: {text!r}" for text in seen["mathOverflow"]]
    problems += [f"math markup left in the text: {text!r}" for text in seen["rawDollars"]]
    problems += [f"image not loaded: {src}" for src in seen["brokenImages"]]
    problems += [f"needs the network to render: {url}" for url in seen["remote"]]
    problems += [f"console error: {message}" for message in console]
    return problems


def _main_page_problems(page: str, words: tuple[str, ...], seen: dict[str, Any]) -> list[str]:
    """What the pages every reader meets must show."""
    problems = []
    h1 = seen["h1"]
    if not h1:
        problems.append("no <h1> in the article")
    else:
        if not any(word in h1.lower() for word in words):
            problems.append(f"heading {h1!r} holds none of {words}")
        if not seen["title"].startswith(h1):
            problems.append(f"<title> {seen['title']!r} does not start with the heading {h1!r}")
    if seen["articleText"] < 80:
        problems.append(f"the article holds {seen['articleText']} characters of text")
    # The theme's stylesheet sets its colour variables, lays the header out as a flex row and
    # sets a sans-serif font; without it the header is a plain block in the browser's Times.
    if not seen["themeColour"] or seen["headerDisplay"] != "flex" or "times" in seen["bodyFont"].lower():
        problems.append(
            "the theme's CSS is not applied (--pst-color-primary={themeColour!r}, header display "
            "{headerDisplay!r}, font {bodyFont!r})".format(**seen)
        )
    if page in MATH_PAGES and not seen["math"]:
        problems.append("no formula on a page that defines one")
    return problems


def _settle(driver: webdriver.Chrome, page: str) -> dict[str, Any]:
    """What INSPECT sees once the page's formulas are typeset and its images loaded."""
    failure = driver.execute_async_script(SETTLE)
    assert failure is None, f"{page}: {failure}"
    seen: dict[str, Any] = driver.execute_script(INSPECT)
    return seen


def _screenshot(driver: webdriver.Chrome, page: str) -> None:
    directory = os.environ.get(SCREENSHOTS_ENV)
    if not directory or page not in SCREENSHOTS:
        return
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(target / f"{SCREENSHOTS[page]}.png"))
    height = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]["height"]
    clip = {"x": 0, "y": 0, "width": WINDOW[0], "height": height, "scale": 1}
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"captureBeyondViewport": True, "clip": clip})
    (target / f"{SCREENSHOTS[page]}-full.png").write_bytes(base64.b64decode(shot["data"]))


@pytest.mark.parametrize("page", list(MAIN_PAGES))
def test_page_renders(driver: webdriver.Chrome, site: Site, page: str) -> None:
    _severe_console(driver)
    _load(driver, site.url(page))
    seen = _settle(driver, page)
    problems = _main_page_problems(page, MAIN_PAGES[page], seen) + _content_problems(
        seen, _severe_console(driver)
    )
    _screenshot(driver, page)
    assert not problems, f"{page} does not render as it should:\n  " + "\n  ".join(problems)


# --------------------------------------------------------------------------- search

RESULTS = """
const summary = document.querySelector("#search-results .search-summary");
if (!summary || !summary.innerText.trim()) return null;
return {
  summary: summary.innerText.trim(),
  hrefs: Array.from(document.querySelectorAll("#search-results ul.search > li > a")).map((a) => a.href),
};
"""


def _search_results(driver: webdriver.Chrome) -> dict[str, Any]:
    results: dict[str, Any] = WebDriverWait(driver, WAIT).until(
        lambda d: d.execute_script(RESULTS), "the search page never finished its search"
    )
    return results


def test_search_finds_a_metric(driver: webdriver.Chrome, site: Site) -> None:
    _load(driver, site.url("search.html", "?q=ndcg"))
    results = _search_results(driver)
    targets = {site.file(href) for href in results["hrefs"]}
    assert site.root / "metrics" / "ndcg.html" in targets, (
        f"searching 'ndcg' does not list metrics/ndcg.html: {results['summary']!r}, {results['hrefs']}"
    )
    assert not _severe_console(driver)


def test_search_box(driver: webdriver.Chrome, site: Site) -> None:
    """Typed into the header's search field, as a reader would, the query reaches the search page."""
    _load(driver, site.url("index.html"))
    button = next(
        b for b in driver.find_elements(By.CSS_SELECTOR, ".search-button__button") if b.is_displayed()
    )
    button.click()
    field = WebDriverWait(driver, WAIT).until(
        lambda d: next(
            (f for f in d.find_elements(By.CSS_SELECTOR, "input[name=q]") if f.is_displayed()), None
        ),
        "the search button opened no search field",
    )
    field.send_keys("reciprocal", Keys.ENTER)
    WebDriverWait(driver, WAIT).until(
        lambda d: "search.html" in d.current_url, "the search field went nowhere"
    )
    results = _search_results(driver)
    assert results["hrefs"], f"searching 'reciprocal' found nothing: {results['summary']!r}"


def test_search_nonsense_finds_nothing(driver: webdriver.Chrome, site: Site) -> None:
    _load(driver, site.url("search.html", "?q=qzxjvwkplmb"))
    results = _search_results(driver)
    assert results["hrefs"] == []
    assert "did not match any documents" in results["summary"]


# --------------------------------------------------------------------------- links

LINKS = """
const attr = (e, name) => ({raw: e.getAttribute(name), url: e[name]});
return {
  links: Array.from(document.querySelectorAll("a[href]")).map((a) => attr(a, "href")),
  resources: [
    ...Array.from(document.querySelectorAll("img[src], script[src]")).map((e) => attr(e, "src")),
    ...Array.from(document.querySelectorAll("link[href]")).filter((l) => l.rel !== "canonical")
        .map((e) => attr(e, "href")),
  ],
  ids: Array.from(document.querySelectorAll("[id], a[name]")).map((e) => e.id || e.getAttribute("name")),
};
"""

MAILBOX = re.compile(r"^[^@\s]+@(?:[a-z0-9-]+\.)+[a-z]{2,63}$", re.IGNORECASE)
HOST = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$|^\d{1,3}(?:\.\d{1,3}){3}$")


@dataclass
class Crawl:
    """What a walk from index.html through every same-site link found."""

    ids: dict[Path, set[str]] = field(default_factory=dict)
    problems: dict[str, list[str]] = field(default_factory=dict)
    # (page, raw href, target file, fragment) of every same-site link and resource
    internal: list[tuple[str, str, Path, str]] = field(default_factory=list)
    external: list[tuple[str, str]] = field(default_factory=list)
    other: list[tuple[str, str]] = field(default_factory=list)


def _is_page(site: Site, path: Path) -> bool:
    return path.suffix == ".html" and not site.name(path).startswith(NOT_PAGES)


@pytest.fixture(scope="module")
def crawl(driver: webdriver.Chrome, site: Site) -> Crawl:
    found = Crawl()
    start = site.root / "index.html"
    queue, queued = deque([start]), {start}
    while queue:
        page = queue.popleft()
        name = site.name(page)
        _severe_console(driver)
        _load(driver, site.url(name))
        problems = _content_problems(_settle(driver, name), _severe_console(driver))
        if problems:
            found.problems[name] = problems
        seen = driver.execute_script(LINKS)
        found.ids[page] = set(seen["ids"])
        for kind in ("links", "resources"):
            for link in seen[kind]:
                raw, url = link["raw"], link["url"]
                target = site.file(url)
                if target is not None:
                    found.internal.append((name, raw, target, unquote(urlsplit(url).fragment)))
                    if (
                        kind == "links"
                        and target not in queued
                        and target.is_file()
                        and _is_page(site, target)
                    ):
                        queued.add(target)
                        queue.append(target)
                elif urlsplit(url).scheme in ("http", "https"):
                    found.external.append((name, raw))
                else:
                    found.other.append((name, raw))
    return found


def test_every_page_renders(crawl: Crawl) -> None:
    """Every page reached: no Sphinx error marker (what a build without -W lets through), every
    formula typeset and within the page, every image loaded, nothing fetched from the network,
    no console error."""
    assert not crawl.problems, f"{len(crawl.problems)} pages do not render as they should:\n" + "\n".join(
        f"  {page}:\n    " + "\n    ".join(problems) for page, problems in sorted(crawl.problems.items())
    )


def test_no_broken_link(crawl: Crawl, site: Site) -> None:
    broken = []
    for page, raw, target, fragment in crawl.internal:
        if target.is_dir() and not (target / "index.html").is_file():
            broken.append(f"{page}: {raw!r}: a directory without index.html")
        elif not target.exists():
            broken.append(f"{page}: {raw!r}: no file {site.name(target)}")
        elif fragment and target in crawl.ids and fragment not in crawl.ids[target]:
            broken.append(f"{page}: {raw!r}: no id {fragment!r} in {site.name(target)}")
    assert not broken, f"{len(set(broken))} broken links:\n  " + "\n  ".join(sorted(set(broken)))


def _malformed(url: str) -> str | None:
    if url != url.strip() or any(c.isspace() for c in url):
        return "holds white space"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError as error:
        return str(error)
    host = parts.hostname or ""
    if not HOST.match(host):
        return f"host {host!r} is not a domain name"
    return None


def test_external_links_are_well_formed(crawl: Crawl) -> None:
    """External links are not fetched (no network here), only checked to be URLs at all."""
    bad = [f"{page}: {url!r}: {why}" for page, url in crawl.external if (why := _malformed(url))]
    for page, url in crawl.other:
        if not url.startswith("mailto:"):
            bad.append(f"{page}: {url!r}: neither a page of the site nor an http(s) or mailto link")
        elif not MAILBOX.match(unquote(url.removeprefix("mailto:"))):
            # docutils makes a link of any word@word in prose (Hits@10): such a name wants ``...``.
            bad.append(f"{page}: {url!r}: a mailto link to no e-mail address (a metric name read as one?)")
    assert not bad, "malformed links:\n  " + "\n  ".join(sorted(set(bad)))


def test_every_page_is_reachable(crawl: Crawl, site: Site) -> None:
    pages = {path for path in site.root.rglob("*.html") if _is_page(site, path)}
    orphans = sorted(site.name(path) for path in pages - set(crawl.ids) if site.name(path) not in GENERATED)
    assert not orphans, f"pages no link from index.html reaches: {orphans}"
