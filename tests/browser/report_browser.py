#!/usr/bin/python3
"""Opens an `attnlab report` page in Debian's headless Chromium (chromedriver + Selenium) and
checks that its panels answer as a person uses them. tests/test_report_browser.cpp runs it.

usage: report_browser.py REPORT.html CHECK [--screenshot PNG [--section ID]]
  CHECK  toc | explorer | scale | epoch | tokens | side-by-side | curves | svg | inputs | lengths |
         opening | fit | row-sums | heads (with --results FILE.h5, the file the report shows)
         (or `open`: only open the page and read the console, for a screenshot)
  --screenshot PNG   after the checks, a picture of a section of the page (default: explorer);
                     docs/images/make-report-screenshots.sh makes the pictures of docs/analysis.md
Every check ends by reading the browser console: any error there fails it.
Exit codes: 0 every check held; 1 a check failed (the reason is printed); 2 the browser could not
start (the reason is printed). chromedriver is stopped by its process id whatever happens.
"""
import base64
import json
import math
import os
import signal
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


class Failed(Exception):
    pass


def expect(condition, what):
    if not condition:
        raise Failed(what)


def start(profile, downloads):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # No network here: these flags keep Chromium from calling home at start.
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1400,1100", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    return driver, service


def stop(driver, service):
    try:
        if driver is not None:
            driver.quit()
    finally:
        process = getattr(service, "process", None)
        if process is not None and process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)


# ---- reading the page ----
def state(driver, panel):
    return driver.execute_script("return Object.assign({}, document.getElementById(arguments[0]).dataset)", panel)


def cells(driver, panel, index=0):
    """The weights of the panel's index-th heatmap, as {(q, k): w}."""
    figures = driver.find_elements(By.CSS_SELECTOR, f"#{panel} svg.heatmap")
    rects = figures[index].find_elements(By.CSS_SELECTOR, "rect.cell")
    values = driver.execute_script(
        "return arguments[0].map(r => [+r.dataset.q, +r.dataset.k, +r.dataset.w, r.getAttribute('fill')])", rects)
    return {(q, k): (w, fill) for q, k, w, fill in values}


def choose(driver, panel, control, value):
    Select(driver.find_element(By.CSS_SELECTOR, f"#{panel} select[data-control='{control}']")).select_by_value(str(value))


def data(driver):
    return driver.execute_script("return window.attnlabReport.data")


def stored(run, example, epoch, map_name, layer, head):
    """The weights of one head as the page's data holds them: {(q, k): w}."""
    ex = next(e for e in run["examples"] if e["name"] == example)
    view = next(v for v in ex["views"] if v["epoch"] == epoch)
    m = next(m for m in view["maps"] if m["name"] == map_name)
    n = m["rows"] * m["columns"]
    heads = range(m["heads"]) if head == "avg" else [head]
    return {(q, k): sum(m["weights"][(layer * m["heads"] + h) * n + q * m["columns"] + k] for h in heads) / len(heads)
            for q in range(m["rows"]) for k in range(m["columns"])}


def same(shown, expected, what):
    expect(shown.keys() == expected.keys(), f"{what}: the heatmap has {len(shown)} cells, the data {len(expected)}")
    worst = max(abs(shown[c][0] - expected[c]) for c in expected)
    expect(worst <= 0.0015, f"{what}: a shown weight differs from the data by {worst}")


def multi_head_run(driver):
    return next(r for r in data(driver)["runs"]
                if any(m["layers"] > 1 and m["heads"] > 1 for e in r["examples"] for v in e["views"] for m in v["maps"]))


# ---- the checks ----
def check_toc(driver):
    links = driver.find_elements(By.CSS_SELECTOR, "nav.toc a")
    expect(len(links) >= 6, f"the table of contents has {len(links)} entries")
    for a in links:
        target = a.get_attribute("href").split("#")[1]
        expect(driver.find_elements(By.ID, target), f"the contents link #{target} leads nowhere")
    expect("config" in driver.find_element(By.CSS_SELECTOR, "#runs").text, "the runs section shows no config")
    origins = {m.get_attribute("title") for m in driver.find_elements(By.CSS_SELECTOR, "pre.config mark")}
    expect(origins == {"swept", "set with --set"}, f"the config marks lines as {origins}, not as swept and as set with --set")
    parts = check_parts(driver)
    expect(any(a.get_attribute("href").split("#")[1].startswith("detectors-") for a in parts),
           "the contents list no grid of the head detectors")


def check_parts(driver):
    """Every id of the page is used once; every entry of the contents below a section leads to its grids."""
    parts = driver.find_elements(By.CSS_SELECTOR, "nav.toc ol.parts a")
    ids = driver.execute_script("return [...document.querySelectorAll('[id]')].map(e => e.id)")
    expect(len(ids) == len(set(ids)), f"ids used twice on the page: {sorted({i for i in ids if ids.count(i) > 1})}")
    for a in parts:
        grids = driver.execute_script(  # a heading: the grids after it, up to the next heading
            "const t = document.getElementById(arguments[0]); if (!t) return -1;"
            "let e = t;"
            "if (t.tagName === 'H3') { e = t.nextElementSibling; while (e && e.tagName !== 'H3' && !e.querySelector('svg')) e = e.nextElementSibling; }"
            "return e && e.tagName !== 'H3' ? e.querySelectorAll('svg').length : 0", a.get_attribute("href").split("#")[1])
        expect(grids > 0, f"the contents entry {a.text!r} leads to no grid ({grids})")
    return parts


def structure(m, layer, head):
    """map_structure.hpp's rule on the page's data: the mean over queries of 1 - H(p) / log(keys seen)."""
    n = m["rows"] * m["columns"]
    w = lambda l, h, q, k: m["weights"][(l * m["heads"] + h) * n + q * m["columns"] + k]
    causal = m["name"] == "decoder_self"
    scores = []
    for q in range(m["rows"]):
        seen = q + 1 if causal else m["columns"]
        row = [w(layer, head, q, k) for k in range(seen)]
        if seen < 2 or sum(row) < 0.01:
            continue
        p = [v / sum(row) for v in row if v > 0]
        scores.append(1 - -sum(v * math.log(v) for v in p) / math.log(seen))
    return sum(scores) / len(scores) if scores else None


def check_opening(driver):
    opening, best = data(driver)["opening"], None
    for run in data(driver)["runs"]:
        if not run["examples"]:
            continue
        example = run["examples"][0]
        for m in example["views"][-1]["maps"]:
            for layer in range(m["layers"]):
                for head in range(m["heads"]):
                    score = structure(m, layer, head)
                    if score is not None and (best is None or score > best[0] + 0.003):
                        best = (score, run["id"], example["name"], m["name"], layer, head)
    expect(best is not None, "no map in the data has a row that counts")
    expect(abs(opening["structure"] - best[0]) < 0.003,
           f"the report opens on structure {opening['structure']}; the data's most structured head has {best[0]:.3f}: {best[1:]}")
    opened = next(m for m in next(r for r in data(driver)["runs"] if r["id"] == opening["run"])["examples"][0]["views"][-1]["maps"]
                  if m["name"] == opening["map"])
    score = structure(opened, opening["layer"], opening["head"])
    expect(score is not None and abs(score - opening["structure"]) < 0.003,
           f"the head opened on has structure {score} in the data, not the {opening['structure']} the report states")
    s = state(driver, "explorer-panel")
    shown = (s["run"], s["example"], s["map"], int(s["layer"]), int(s["head"]))
    expect(shown == (opening["run"], opening["example"], opening["map"], opening["layer"], opening["head"]),
           f"the explorer opens on {shown}, not on the opening {opening}")
    note = driver.find_element(By.CSS_SELECTOR, "#explorer-panel p.opening").text
    expect(opening["run"] in note and "most structure" in note, f"the explorer does not say why it opened there: {note!r}")
    run = next(r for r in data(driver)["runs"] if r["id"] == opening["run"])
    same(cells(driver, "explorer-panel"), stored(run, opening["example"], "final", opening["map"], opening["layer"], opening["head"]),
         "the opening head")


def check_fit(driver):
    """At a narrow window, the page does not scroll sideways: a table too wide scrolls in its box."""
    for width in (1400, 760):
        driver.set_window_size(width, 1000)
        time.sleep(0.3)
        overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        expect(overflow <= 1, f"at a window {width} px wide the page is {overflow} px wider than the window")
        boxes = driver.find_elements(By.CSS_SELECTOR, "div.table-scroll")
        tables = driver.find_elements(By.CSS_SELECTOR, "table")
        expect(len(boxes) == len(tables), f"{len(tables)} tables, {len(boxes)} of them in a scrolling box")
    scrolling = driver.execute_script("return [...document.querySelectorAll('div.table-scroll')]"
                                      ".filter(b => b.scrollWidth > b.clientWidth && getComputedStyle(b).overflowX === 'auto').length")
    expect(scrolling > 0, "at 760 px no table is wider than the page: the test shows nothing scrolls in its box")


def check_heads(driver, results):
    """Every run `attnlab ablate` analysed has its grids, listed in the contents, each cell's hover
    value the one in the results file."""
    import h5py
    import re
    with h5py.File(results, "r") as f:
        analysed = [run for run in f["runs"] if "heads" in f["runs"][run]]
        expect(analysed, "no run of the results file was analysed by attnlab ablate")
        listed = {a.get_attribute("href").split("#")[1] for a in check_parts(driver)}
        for run in analysed:
            heads, anchor = f["runs"][run]["heads"], "heads-" + re.sub(r"[^A-Za-z0-9_-]", "-", run)
            for kind, name in (("ablation", "ablation"), ("importance", "importance")):
                for map_name in heads[kind]:
                    grid_id = f"{anchor}-{name}-{map_name}"
                    expect(grid_id in listed, f"the contents do not list the grid {grid_id}")
                    grid = driver.find_element(By.ID, grid_id)
                    title = grid.find_element(By.CSS_SELECTOR, "svg text").text
                    metric = "importance" if kind == "importance" else re.search(r"change of (\S+),", title).group(1)
                    stored = heads[kind][map_name][metric][()]
                    shown = driver.execute_script("return [...arguments[0].querySelectorAll('rect title')].map(t => t.textContent)", grid)
                    expect(len(shown) == stored.size, f"{grid_id}: {len(shown)} cells for {stored.size} heads")
                    for text in shown:
                        layer, head, value = re.match(r"(\d+) -> (\d+): (\S+)", text).groups()
                        want = float(stored[int(layer), int(head)])
                        tolerance = 1e-3 if abs(want) < 1e-3 else 1e-5 * (1 + abs(want))  # (svg.cpp's tick_label)
                        expect(abs(float(value) - want) <= tolerance,
                               f"{grid_id} layer {layer} head {head} shows {value}, the file has {want}")
            expect(driver.find_elements(By.ID, anchor + "-pruning"), f"{run} has no pruning curve")


def check_row_sums(driver):
    """A sigmoid run's map shows each row's sum beside the heatmap (check_explorer: a softmax map does not)."""
    maps = [(r, m) for r in data(driver)["runs"] for e in r["examples"][:1] for m in e["views"][-1]["maps"]]
    run, m = next(((r, m) for r, m in maps if m["rows_sum_to_one"] is False), (None, None))
    expect(run is not None, "no map of this report has rows that do not sum to 1")
    choose(driver, "explorer-panel", "run", run["id"])
    choose(driver, "explorer-panel", "map", m["name"])
    choose(driver, "explorer-panel", "layer", 0)
    choose(driver, "explorer-panel", "head", 0)
    sums = driver.execute_script("return [...document.querySelectorAll('#explorer-panel svg.heatmap text.row-sum')]"
                                 ".map(t => [+t.dataset.q, +t.textContent])")
    weights = stored(run, run["examples"][0]["name"], "final", m["name"], 0, 0)
    expect(len(sums) == m["rows"], f"{len(sums)} row sums shown for {m['rows']} rows")
    for q, shown in sums:
        expected = sum(w for (row, _), w in weights.items() if row == q)
        expect(abs(shown - expected) < 0.011, f"row {q}: the sum shown is {shown}, the data's {expected:.3f}")
    expect("do not all sum to 1" in driver.find_element(By.ID, "explorer-panel").text, "nothing says the rows do not sum to 1")


def check_explorer(driver):
    run = multi_head_run(driver)
    choose(driver, "explorer-panel", "run", run["id"])
    choose(driver, "explorer-panel", "map", "encoder_self")
    choose(driver, "explorer-panel", "layer", 0)
    choose(driver, "explorer-panel", "head", 0)  # (it opens on the most structured head)
    example = state(driver, "explorer-panel")["example"]
    same(cells(driver, "explorer-panel"), stored(run, example, "final", "encoder_self", 0, 0), "layer 0 head 0")
    expect(not driver.find_elements(By.CSS_SELECTOR, "#explorer-panel text.row-sum"), "a softmax map shows row sums")
    layer0 = cells(driver, "explorer-panel")
    choose(driver, "explorer-panel", "layer", 1)
    s = state(driver, "explorer-panel")
    expect(s["layer"] == "1" and s["map"] == "encoder_self", f"after choosing layer 1 the explorer shows {s}")
    title = driver.find_element(By.CSS_SELECTOR, "#explorer-panel figure.panel").get_attribute("data-title")
    expect("layer 1" in title and "head 0" in title, f"the heatmap's title after choosing layer 1: {title}")
    same(cells(driver, "explorer-panel"), stored(run, example, "final", "encoder_self", 1, 0), "layer 1 head 0")
    expect(cells(driver, "explorer-panel") != layer0, "layer 1 draws the same weights as layer 0")
    choose(driver, "explorer-panel", "head", 1)
    expect(state(driver, "explorer-panel")["head"] == "1", "the head selector did not switch")
    same(cells(driver, "explorer-panel"), stored(run, example, "final", "encoder_self", 1, 1), "layer 1 head 1")
    choose(driver, "explorer-panel", "head", "avg")
    same(cells(driver, "explorer-panel"), stored(run, example, "final", "encoder_self", 1, "avg"), "layer 1 head average")
    choose(driver, "explorer-panel", "map", "cross")
    expect(state(driver, "explorer-panel")["map"] == "cross", "the map selector did not switch to cross")


STOPS = [(255, 255, 255), (198, 219, 239), (107, 174, 214), (33, 113, 181), (8, 48, 107)]


def sequential(t):
    """The report's colour of t in [0, 1]: white to dark blue through STOPS (docs/analysis.md)."""
    t = min(1.0, max(0.0, t)) * (len(STOPS) - 1)
    i = min(len(STOPS) - 2, int(t))
    return tuple(a + (t - i) * (b - a) for a, b in zip(STOPS[i], STOPS[i + 1]))


def coloured(shown, top, what):
    """Every cell's fill is sequential(w / top), within rounding (w is shown to 3 decimals)."""
    for (q, k), (w, fill) in shown.items():
        rgb = tuple(int(c) for c in fill[4:-1].split(","))
        lo, hi = sequential((w - 0.0005) / top), sequential((w + 0.0005) / top)
        expect(all(min(a, b) - 1 <= c <= max(a, b) + 1 for a, b, c in zip(lo, hi, rgb)),
               f"{what}: cell ({q}, {k}) of weight {w} is {fill}, not the colour of {w / top:.3f} on the scale")


def check_scale(driver):
    choose(driver, "explorer-panel", "run", multi_head_run(driver)["id"])
    choose(driver, "explorer-panel", "map", "cross")
    choose(driver, "explorer-panel", "layer", 1)
    shown = cells(driver, "explorer-panel")
    coloured(shown, 1.0, "shared [0, 1] scale")
    top = max(w for w, _ in shown.values())
    expect(top < 0.99, f"the test needs a map whose largest weight is below 1, not {top}")
    driver.find_element(By.CSS_SELECTOR, "#explorer-panel input.own-scale").click()
    coloured(cells(driver, "explorer-panel"), top, "own scale")
    expect("own" in driver.find_element(By.CSS_SELECTOR, "#explorer-panel figure.panel").text, "no own-scale toggle")
    driver.find_element(By.CSS_SELECTOR, "#explorer-panel input.own-scale").click()
    expect(cells(driver, "explorer-panel") == shown, "switching the own scale off does not bring the shared scale back")


def check_epoch(driver):
    run = multi_head_run(driver)
    choose(driver, "explorer-panel", "run", run["id"])
    choose(driver, "explorer-panel", "map", "cross")
    choose(driver, "explorer-panel", "layer", 0)
    choose(driver, "explorer-panel", "head", 0)
    example = state(driver, "explorer-panel")["example"]
    epochs = [v["epoch"] for v in next(e for e in run["examples"] if e["name"] == example)["views"]]
    expect(len(epochs) >= 3, f"the run has views {epochs}: too few snapshots for the test")
    slider = driver.find_element(By.CSS_SELECTOR, "#explorer-panel input[data-control='epoch']")
    expect(slider.get_attribute("value") == str(len(epochs) - 1), "the slider does not start on the final maps")
    shown = {}
    for position in range(len(epochs) - 1, -1, -1):
        readout = driver.find_element(By.CSS_SELECTOR, "#explorer-panel output[data-readout='epoch']").text
        expected = "final" if epochs[position] == "final" else f"epoch {epochs[position]}"
        expect(readout == expected, f"at slider position {position} the readout says {readout!r}, not {expected!r}")
        expect(state(driver, "explorer-panel")["epoch"] == epochs[position], "the explorer's epoch did not follow the slider")
        shown[epochs[position]] = cells(driver, "explorer-panel")
        same(shown[epochs[position]], stored(run, example, epochs[position], "cross", 0, 0), f"epoch {epochs[position]}")
        slider = driver.find_element(By.CSS_SELECTOR, "#explorer-panel input[data-control='epoch']")
        slider.send_keys(Keys.ARROW_LEFT)
    expect(shown[epochs[0]] != shown["final"], "the first snapshot and the final maps are drawn alike")


def check_tokens(driver):
    choose(driver, "explorer-panel", "run", multi_head_run(driver)["id"])
    choose(driver, "explorer-panel", "map", "cross")
    lines = lambda: driver.execute_script(
        "return [...document.querySelectorAll('#explorer-panel svg.token-view g.lines line')]"
        ".map(l => [+l.dataset.q, +l.dataset.k, +l.dataset.w, +l.getAttribute('stroke-width')])")
    at_rest = lines()
    expect(len(at_rest) > 0, "the token view draws no lines at rest")
    token = driver.find_elements(By.CSS_SELECTOR, "#explorer-panel svg.token-view text.token[data-side='q']")[1]
    ActionChains(driver).move_to_element(token).perform()
    hovered = lines()
    expect(hovered and all(q == 1 for q, _, _, _ in hovered), f"hovering query 1 draws lines of other queries: {hovered[:3]}")
    weights = {(q, k): w for q, k, w, _ in at_rest}
    expect(len(hovered) == sum(1 for (q, _), w in weights.items() if q == 1), "hovering query 1 leaves some of its lines out")
    for _, _, w, width in hovered:
        expect(abs(width - (0.5 + 7 * w)) < 1e-6, f"a line of weight {w} is {width} wide, not 0.5 + 7w")
    expect(token.get_attribute("font-weight") == "bold", "the hovered token is not marked")
    ActionChains(driver).move_to_element(driver.find_element(By.TAG_NAME, "h1")).perform()
    expect(len(lines()) == len(at_rest), "leaving the token does not bring every line back")


def check_side_by_side(driver):
    s = state(driver, "compare-panel")
    expect(s["a"] != s["b"], f"side by side starts with one run twice: {s}")
    runs = {r["id"]: r for r in data(driver)["runs"]}
    a, b, d = (cells(driver, "compare-panel", i) for i in range(3))
    expect(d and len(d) == len(a.keys() & b.keys()), f"{len(d)} difference cells where A and B share {len(a.keys() & b.keys())}")
    for (q, k), (w, _) in d.items():
        expect(abs(w - (b[(q, k)][0] - a[(q, k)][0])) < 0.0021, f"difference cell ({q}, {k}) is {w}, not B - A")
    head = "avg" if s["head"] == "avg" else int(s["head"])
    same(a, stored(runs[s["a"]], s["example"], "final", s["map"], int(s["layer"]), head), "run A")
    same(b, stored(runs[s["b"]], s["example"], "final", s["map"], int(s["layer"]), head), "run B")
    aligned(driver, runs, two_lengths(driver, runs, s))
    other = next(r for r in runs if r not in (s["a"], s["b"]))
    choose(driver, "compare-panel", "run-b", other)
    expect(state(driver, "compare-panel")["b"] == other, "choosing run B did not switch it")
    expect(len(driver.find_elements(By.CSS_SELECTOR, "#compare-panel svg.heatmap")) == 3, "side by side lost a panel")


def final_map(run, example, name):
    return next(m for m in next(e for e in run["examples"] if e["name"] == example)["views"][-1]["maps"] if m["name"] == name)


def two_lengths(driver, runs, s):
    """Chooses runs A and B whose maps of the shown example have different numbers of rows."""
    rows = {r: final_map(runs[r], s["example"], s["map"])["rows"] for r in runs}
    pair = next(((a, b) for a in runs for b in runs if rows[a] != rows[b]), None)
    expect(pair is not None, f"every run predicts {s['example']} at one length: the test needs two that differ")
    choose(driver, "compare-panel", "run-a", pair[0])
    choose(driver, "compare-panel", "run-b", pair[1])
    return state(driver, "compare-panel")


def aligned(driver, runs, s):
    """The three panels share one grid of query and key positions; both predictions are shown."""
    ma, mb = (final_map(runs[s[k]], s["example"], s["map"]) for k in ("a", "b"))
    expect(ma["rows"] != mb["rows"], f"runs A and B have maps of {ma['rows']} and {mb['rows']} rows, not two lengths")
    rows, columns = max(ma["rows"], mb["rows"]), max(ma["columns"], mb["columns"])
    places = driver.execute_script(
        "return [...document.querySelectorAll('#compare-panel svg.heatmap')].map(f => [...f.querySelectorAll('rect.cell, rect.empty')]"
        ".map(r => [+r.dataset.q, +r.dataset.k, r.getBoundingClientRect().top, r.getBoundingClientRect().height, r.getAttribute('class')]))")
    for i, panel in enumerate(places):
        expect(len(panel) == rows * columns, f"panel {i} has {len(panel)} places, not {rows} x {columns}")
    tops = [{(q, k): top for q, k, top, _, _ in panel} for panel in places]
    for q in range(rows):
        expect(abs(tops[0][(q, 0)] - tops[1][(q, 0)]) < 0.5 and abs(tops[0][(q, 0)] - tops[2][(q, 0)]) < 0.5,
               f"query position {q} is not on one line in the three panels: {[t[(q, 0)] for t in tops]}")
    for i, m in enumerate((ma, mb)):
        empty = {(q, k) for q, k, _, _, kind in places[i] if kind == "empty"}
        expect(empty == {(q, k) for q in range(rows) for k in range(columns) if q >= m["rows"] or k >= m["columns"]},
               f"run {'AB'[i]}'s grey places are not the places its map has not")
    for key, m in (("a", ma), ("b", mb)):
        example = next(e for e in runs[s[key]]["examples"] if e["name"] == s["example"])
        line = driver.find_element(By.CSS_SELECTOR, f"#compare-panel .predictions [data-run='{key}']").text
        expect(f'"{example["prediction"]}"' in line and s[key] in line, f"run {key.upper()}'s prediction is not shown: {line!r}")


def check_curves(driver):
    expect(state(driver, "curves-panel")["metric"] == "train_loss", "the curves do not start on train_loss")
    groups = data(driver)["curves"]["train_loss"]
    chart = driver.find_element(By.CSS_SELECTOR, "#curves-panel svg.chart")
    expect(len(chart.find_elements(By.CSS_SELECTOR, "polyline.mean")) == len(groups), "one mean line per sweep point is missing")
    expect(len(chart.find_elements(By.CSS_SELECTOR, "polygon.band")) == sum(1 for g in groups if any(s > 0 for s in g["std"])),
           "a sweep point with several seeds has no std band")
    linear = [t.text for t in chart.find_elements(By.CSS_SELECTOR, "text.y-tick")]
    driver.find_element(By.CSS_SELECTOR, "#curves-panel input[data-control='log-y']").click()
    chart = driver.find_element(By.CSS_SELECTOR, "#curves-panel svg.chart")
    expect(chart.get_attribute("data-log") == "1", "the log-y toggle did not switch the axis")
    logged = [t.text for t in chart.find_elements(By.CSS_SELECTOR, "text.y-tick")]
    expect(logged != linear, f"log y draws the same ticks as linear y: {logged}")
    choose(driver, "curves-panel", "metric", "grad_norm")
    expect(state(driver, "curves-panel")["metric"] == "grad_norm", "the metric selector did not switch")


def check_lengths(driver):
    """The panel "At other lengths": a curve per sweep point of a metric against the input length."""
    lengths = data(driver)["lengths"]
    expect(state(driver, "lengths-panel")["metric"] == "valid_ppl", "the length curves do not start on valid_ppl")
    chart = driver.find_element(By.CSS_SELECTOR, "#lengths-panel svg.chart")
    expect(len(chart.find_elements(By.CSS_SELECTOR, "polyline.mean")) == len(lengths["valid_ppl"]),
           "one mean line per sweep point is missing")
    labels = [t.text for t in chart.find_elements(By.CSS_SELECTOR, "text")]
    expect("input length" in labels, f"the x axis is not the input length: {labels}")
    for g in lengths["valid_ppl"]:
        line = chart.find_element(By.CSS_SELECTOR, f"polyline.mean[data-label='{g['label']}']")
        expect(len(line.get_attribute("points").split()) == len(g["epoch"]), f"{g['label']}: not one point per length")
    choose(driver, "lengths-panel", "metric", "valid_accuracy")
    expect(state(driver, "lengths-panel")["metric"] == "valid_accuracy", "the metric selector did not switch")


def check_svg(driver, downloads):
    text = driver.execute_script("return window.attnlabReport.svgText(document.querySelector('#explorer-panel svg.heatmap'))")
    expect(text.startswith("<?xml") and 'xmlns="http://www.w3.org/2000/svg"' in text and "rect" in text,
           "the explorer heatmap does not export as an SVG document")
    driver.find_element(By.CSS_SELECTOR, "#curves-panel button.save-svg").click()
    for _ in range(50):
        saved = [f for f in os.listdir(downloads) if f.endswith(".svg")]
        if saved:
            break
        time.sleep(0.1)
    expect(saved, "the curves panel's SVG button saved no file")
    with open(os.path.join(downloads, saved[0]), encoding="utf-8") as f:
        expect("<svg" in f.read(), f"{saved[0]} is not an SVG")


def check_inputs(driver):
    """A run of images, a graph or speech shows its attention drawn on its input: an image under
    its patch grid, the graph's nodes and edges, or a curve over time above the spectrogram."""
    pictures = driver.find_elements(By.CSS_SELECTOR, "#runs .input-attention > svg")
    expect(pictures, "no run shows its attention drawn on its input")
    for svg in pictures:
        expect(svg.size["width"] > 100 and svg.size["height"] > 100, f"an input picture is drawn {svg.size}")
        images = svg.find_elements(By.CSS_SELECTOR, "image")
        loaded = [driver.execute_script("const i = new Image(); i.src = arguments[0]; return i.decode().then(() => i.naturalWidth)",
                                        im.get_attribute("href")) for im in images]
        expect(all(w and w > 0 for w in loaded), "an embedded image does not decode in the browser")
        lines, circles = svg.find_elements(By.CSS_SELECTOR, "line"), svg.find_elements(By.CSS_SELECTOR, "circle")
        expect(images or (lines and circles) or "over time" in svg.text,
               "an input picture holds no image, no graph and no curve over time")
    check_input_view(driver)


def input_view(driver):
    """The explorer's picture on the input: (its panel title, its SVG's markup)."""
    figures = driver.find_elements(By.CSS_SELECTOR, "#explorer-panel .input-view figure.panel")
    expect(len(figures) == 1, f"the explorer shows {len(figures)} pictures on the input")
    svg = figures[0].find_element(By.CSS_SELECTOR, "svg")
    expect(svg.size["width"] > 100 and svg.size["height"] > 100, f"the explorer's input picture is drawn {svg.size}")
    return figures[0].get_attribute("data-title"), svg.get_attribute("outerHTML")


def check_input_view(driver):
    """The explorer draws the chosen layer and head on the input, and redraws it when they change."""
    run = next(r for r in data(driver)["runs"] if r.get("inputs"))
    choose(driver, "explorer-panel", "run", run["id"])
    maps = run["examples"][0]["views"][-1]["maps"]
    m = max(maps, key=lambda m: m["layers"] * m["heads"])
    choose(driver, "explorer-panel", "map", m["name"])
    seen = {}
    for layer in range(m["layers"]):
        choose(driver, "explorer-panel", "layer", layer)
        for head in (["avg"] if m["heads"] > 1 else []) + list(range(m["heads"])):
            choose(driver, "explorer-panel", "head", head)
            title, markup = input_view(driver)
            want = "average of" if head == "avg" else f"head {head}"
            expect(f"layer {layer}" in title and want in title, f"layer {layer}, head {head}: the input picture is titled {title!r}")
            seen[(layer, head)] = markup
    expect(len(set(seen.values())) == len(seen), f"{len(seen)} layer and head choices drew only {len(set(seen.values()))} pictures")


def picture(driver, section, png):
    """A PNG of one section of the page, wherever it is (Chromium's element screenshots stop at the window)."""
    box = driver.execute_script("const r = document.getElementById(arguments[0]).getBoundingClientRect();"
                                "return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height, scale: 1}", section)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": box})
    with open(png, "wb") as f:
        f.write(base64.b64decode(shot["data"]))


def console_errors(driver):
    return [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    report, check = os.path.abspath(sys.argv[1]), sys.argv[2]
    screenshot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    checks = {"open": lambda driver: None, "toc": check_toc, "explorer": check_explorer, "scale": check_scale, "epoch": check_epoch,
              "tokens": check_tokens, "side-by-side": check_side_by_side, "curves": check_curves, "svg": check_svg,
              "inputs": check_inputs, "lengths": check_lengths, "opening": check_opening, "fit": check_fit,
              "row-sums": check_row_sums, "heads": check_heads}
    if check not in checks:
        sys.exit(f"unknown check {check!r}; the checks are {', '.join(checks)}")
    driver = service = None
    with tempfile.TemporaryDirectory() as profile, tempfile.TemporaryDirectory() as downloads:
        try:
            driver, service = start(profile, downloads)
        except (WebDriverException, OSError) as e:
            print(f"cannot start headless Chromium through {CHROMEDRIVER}: {e}".strip())
            stop(driver, service)
            return 2
        try:
            driver.get("file://" + report)
            extra = {"svg": [downloads], "heads": [sys.argv[sys.argv.index("--results") + 1] if "--results" in sys.argv else ""]}
            checks[check](driver, *extra.get(check, []))
            errors = console_errors(driver)
            expect(not errors, "the browser console has errors: " + json.dumps(errors))
            if screenshot:
                section = sys.argv[sys.argv.index("--section") + 1] if "--section" in sys.argv else "explorer"
                picture(driver, section, screenshot)
            print(f"{check}: ok")
            return 0
        except Failed as e:
            print(f"{check}: FAILED: {e}")
            return 1
        finally:
            stop(driver, service)


if __name__ == "__main__":
    sys.exit(main())
