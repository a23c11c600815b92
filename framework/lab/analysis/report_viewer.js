// attnlab report viewer: the interactive panels of `attnlab report`, drawn from the JSON the page
// embeds (the script element with id attnlab-data, written by report_data.cpp, whose header gives its shape).
// Plain JavaScript and SVG, no library, nothing fetched: the page works from file:// offline.
//   explorer      one run's maps: run, example, map kind, layer, head (or their average), an
//                 epoch slider over the snapshots, a heatmap (with each row's sum when rows need
//                 not sum to 1) and a BertViz-style token view; it opens on data.opening, the
//                 head with the most structure (lab/analysis/map_structure.hpp)
//   side by side  two runs on the same example on one grid of query and key positions, both
//                 predictions, and the difference map (B - A)
//   curves        a history column per sweep point: mean line, mean +- std band, log-y toggle
//   lengths       the same for each metric of evaluation.lengths against the input length
// Every picture is an SVG element with a button that saves it as an .svg file.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("attnlab-data").textContent);
  const SVG_NS = "http://www.w3.org/2000/svg";
  const FONT = "DejaVu Sans, Arial, sans-serif";

  // ---- small DOM helpers ----
  function html(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    e.append(...children);
    return e;
  }
  function svg(tag, attrs, ...children) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    e.append(...children);
    return e;
  }
  function text(x, y, content, attrs) {
    return svg("text", Object.assign({ x, y, "font-family": FONT, "font-size": 11 }, attrs || {}), String(content));
  }
  function fmt(v) {
    if (v === null || !isFinite(v)) return "-";
    const a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(2) : String(+v.toFixed(4));
  }

  // ---- colours: weights on a white-to-blue scale, differences on blue-white-red ----
  const STOPS = [[255, 255, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]];
  function sequential(t) {
    t = Math.min(1, Math.max(0, t)) * (STOPS.length - 1);
    const i = Math.min(STOPS.length - 2, Math.floor(t)), f = t - i;
    const c = STOPS[i].map((a, k) => Math.round(a + f * (STOPS[i + 1][k] - a)));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }
  function diverging(t) {  // t in [-1, 1]
    t = Math.min(1, Math.max(-1, t));
    const to = t < 0 ? [33, 102, 172] : [178, 24, 43], f = Math.abs(t);
    const c = to.map((a) => Math.round(255 + f * (a - 255)));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  // ---- the tooltip that heatmap cells and curves show on hover ----
  const tip = html("div", { class: "tip", role: "tooltip" });
  document.body.append(tip);
  function showTip(event, content) {
    tip.textContent = content;
    tip.style.display = "block";
    tip.style.left = event.pageX + 12 + "px";
    tip.style.top = event.pageY + 12 + "px";
  }
  function hideTip() { tip.style.display = "none"; }

  // ---- SVG export ----
  function svgText(figure) {
    const copy = figure.cloneNode(true);
    copy.setAttribute("xmlns", SVG_NS);
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy);
  }
  function saveSvg(figure, name) {
    const url = URL.createObjectURL(new Blob([svgText(figure)], { type: "image/svg+xml" }));
    const a = html("a", { href: url, download: name.replace(/[^A-Za-z0-9_.-]+/g, "_") + ".svg" });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  // A titled box around one picture: a "save SVG" button, and an own-scale toggle when asked.
  function panel(title, figure, options) {
    const box = html("figure", { class: "panel", "data-title": title });
    const bar = html("figcaption", {}, html("span", { class: "panel-title" }, title));
    if (options && options.onScale) {
      const box_ = html("input", { type: "checkbox", class: "own-scale" });
      box_.checked = !!options.ownScale;
      box_.addEventListener("change", () => options.onScale(box_.checked));
      bar.append(html("label", { title: "colour up to this panel's own largest value" }, box_, " own scale"));
    }
    const save = html("button", { type: "button", class: "save-svg" }, "SVG");
    save.addEventListener("click", () => saveSvg(box.querySelector("svg"), title));
    bar.append(save);
    box.append(bar, figure);
    return box;
  }

  // ---- maps ----
  // The [rows][columns] weights of one layer and head ("avg": the mean of the heads).
  function matrix(map, layer, head) {
    const n = map.rows * map.columns, out = [];
    const heads = head === "avg" ? [...Array(map.heads).keys()] : [head];
    for (let q = 0; q < map.rows; ++q) {
      const row = [];
      for (let k = 0; k < map.columns; ++k) {
        let sum = 0;
        for (const h of heads) sum += map.weights[(layer * map.heads + h) * n + q * map.columns + k];
        row.push(sum / heads.length);
      }
      out.push(row);
    }
    return out;
  }
  function largest(m) { return m.reduce((a, row) => Math.max(a, ...row.map(Math.abs)), 0); }

  // The cell size and margins of a heatmap of these labels; heatmaps drawn side by side share
  // the largest, so that their rows line up.
  function heatmapLayout(queries, keys) {
    const longest = (labels) => Math.min(14, Math.max(1, ...labels.map((l) => l.length)));
    return { cell: Math.max(9, Math.min(26, Math.floor(440 / Math.max(keys.length, 1)))), left: 18 + 7 * longest(queries), top: 18 + 7 * longest(keys) };
  }
  function sharedLayout(layouts) {
    return { cell: Math.min(...layouts.map((l) => l.cell)), left: Math.max(...layouts.map((l) => l.left)), top: Math.max(...layouts.map((l) => l.top)) };
  }
  // Each row's sum; null for a row of places only the other run has.
  function rowSums(m) { return m.map((row) => (row.every((v) => v === null) ? null : row.reduce((a, v) => a + (v === null ? 0 : v), 0))); }

  // A heatmap: rows are queries, columns keys; the gold key of a row is outlined; a null value is
  // a place this map has not (grey). scale: {lo, hi, diverging}. options: layout (as
  // heatmapLayout), sums (a column of the rows' sums). Hovering a cell shows query, key and value.
  function heatmap(m, queries, keys, scale, axes, gold, options) {
    const { cell, left, top } = (options && options.layout) || heatmapLayout(queries, keys);
    const sums = options && options.sums, sumsWidth = sums ? 44 : 0;
    const legend = `${axes[0]} (rows) · ${axes[1]} (columns)`;
    const width = Math.max(left + cell * keys.length + sumsWidth + 16, 12 + 6 * legend.length), height = top + cell * queries.length + 52;
    const figure = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "heatmap" });
    figure.append(svg("rect", { width, height, fill: "white" }));
    const colour = (v) => scale.diverging ? diverging(v / (scale.hi || 1)) : sequential((v - scale.lo) / ((scale.hi - scale.lo) || 1));
    const every = Math.ceil(13 / cell);  // small cells: label every few rows and columns, hover for the rest
    queries.forEach((q, i) => {
      if (i % every === 0) figure.append(text(left - 4, top + cell * i + cell / 2 + 4, q.slice(0, 14), { "text-anchor": "end" }));
    });
    keys.forEach((k, j) => {
      const x = left + cell * j + cell / 2 + 4, y = top - 4;
      if (j % every === 0) figure.append(text(x, y, k.slice(0, 14), { transform: `rotate(-60 ${x} ${y})` }));
    });
    m.forEach((row, i) => row.forEach((v, j) => {
      const place = { x: left + cell * j, y: top + cell * i, width: cell, height: cell, "data-q": i, "data-k": j };
      const r = v === null ? svg("rect", Object.assign(place, { class: "empty", fill: "#e4e4e4" }))
        : svg("rect", Object.assign(place, { class: "cell", fill: colour(v), "data-w": v.toFixed(3) }));
      r.addEventListener("mousemove", (e) => showTip(e, `${queries[i]} → ${keys[j]}: ${v === null ? "no such place in this run" : v.toFixed(3)}`));
      r.addEventListener("mouseleave", hideTip);
      figure.append(r);
    }));
    if (sums) {
      const x = left + cell * keys.length + 6;
      figure.append(text(x, top - 4, "Σ row", { "font-size": 10, fill: "#555" }));
      sums.forEach((v, i) => v !== null && figure.append(text(x, top + cell * i + cell / 2 + 4, v.toFixed(2),
                                                { class: "row-sum", "data-q": i, "font-size": Math.min(11, cell), fill: "#333" })));
    }
    (gold || []).forEach((g, i) => {
      if (g >= 0) figure.append(svg("rect", { x: left + cell * g + 1, y: top + cell * i + 1, width: cell - 2, height: cell - 2,
                                              fill: "none", stroke: "#e6550d", "stroke-width": 1.5, "pointer-events": "none" }));
    });
    colourBar(figure, left, top + cell * queries.length + 10, Math.min(220, width - left - 10), colour, scale);
    figure.append(text(6, height - 4, legend, { fill: "#555", "font-size": 10 }));
    return figure;
  }
  function colourBar(figure, x, y, width, colour, scale) {
    const lo = scale.diverging ? -scale.hi : scale.lo;
    for (let i = 0; i < 40; ++i)
      figure.append(svg("rect", { x: x + (width * i) / 40, y, width: width / 40 + 0.5, height: 8, fill: colour(lo + ((scale.hi - lo) * i) / 39) }));
    figure.append(text(x, y + 20, fmt(lo), { "font-size": 10 }), text(x + width, y + 20, fmt(scale.hi), { "font-size": 10, "text-anchor": "end" }));
  }

  // BertViz-style token view: queries on the left, keys on the right, a line for each weight.
  // At rest every line is drawn faintly; hovering a token draws only its lines, thickness =
  // weight.
  function tokenView(m, queries, keys) {
    const step = 18, width = 360, height = 30 + step * Math.max(queries.length, keys.length);
    const figure = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "token-view" });
    figure.append(svg("rect", { width, height, fill: "white" }));
    const lines = svg("g", { class: "lines" });
    figure.append(lines);
    const qx = 120, kx = 240, y = (i) => 24 + step * i;
    function draw(which, index) {
      lines.replaceChildren();
      m.forEach((row, i) => row.forEach((w, j) => {
        const mine = which === null || (which === "q" ? i === index : j === index);
        if (!mine || w < 0.005) return;
        lines.append(svg("line", { x1: qx + 4, y1: y(i) - 4, x2: kx - 4, y2: y(j) - 4, stroke: "#2171b5",
                                   "stroke-width": which === null ? 1 : 0.5 + 7 * w, "stroke-opacity": which === null ? 0.6 * w : 0.35 + 0.65 * w,
                                   "data-q": i, "data-k": j, "data-w": w.toFixed(3) }));
      }));
      figure.querySelectorAll(".token").forEach((t) =>
        t.setAttribute("font-weight", which !== null && t.dataset.side === which && +t.dataset.index === index ? "bold" : "normal"));
    }
    const token = (side, label, i) => {
      const t = text(side === "q" ? qx : kx, y(i), label.slice(0, 16), { "text-anchor": side === "q" ? "end" : "start",
                     class: "token", "data-side": side, "data-index": i, "font-size": 12, cursor: "pointer" });
      t.addEventListener("mouseenter", () => draw(side, i));
      t.addEventListener("mouseleave", () => draw(null));
      return t;
    };
    figure.append(text(qx, 12, "queries", { "text-anchor": "end", fill: "#555" }), text(kx, 12, "keys", { fill: "#555" }));
    queries.forEach((q, i) => figure.append(token("q", q, i)));
    keys.forEach((k, j) => figure.append(token("k", k, j)));
    draw(null);
    return figure;
  }

  // ---- selectors ----
  // A labelled menu; `control` names it for tests (default: the label).
  function select(name, options, value, onChange, control) {
    const s = html("select", { "data-control": control || name });
    for (const [v, label] of options) s.append(html("option", { value: v }, label));
    s.value = String(value);
    s.addEventListener("change", () => onChange(s.value));
    return html("label", {}, name + " ", s);
  }
  function runById(id) { return data.runs.find((r) => r.id === id); }
  function exampleOf(run, name) { return run.examples.find((e) => e.name === name) || run.examples[0]; }
  function exampleLabel(e) { return e.source ? `${e.name}: ${e.source}` : e.name; }
  function range(n) { return [...Array(n).keys()].map((i) => [i, String(i)]); }
  // Keeps a choice valid when the run, example or epoch changes what there is to choose from.
  function settle(state) {
    const run = runById(state.run), example = exampleOf(run, state.example);
    state.example = example.name;
    state.epoch = Math.min(state.epoch, example.views.length - 1);
    const maps = example.views[state.epoch].maps;
    const map = maps.find((m) => m.name === state.map) || maps[0];
    state.map = map.name;
    state.layer = Math.min(state.layer, map.layers - 1);
    if (state.head !== "avg") state.head = Math.min(state.head, map.heads - 1);
    return { run, example, map };
  }
  function mapControls(state, map, maps, redraw) {
    const set = (key, parse) => (v) => { state[key] = parse(v); redraw(); };
    const heads = map.heads > 1 ? [["avg", "average of heads"], ...range(map.heads)] : range(1);
    return [select("map", maps.map((m) => [m.name, m.name]), state.map, set("map", String)),
            select("layer", range(map.layers), state.layer, set("layer", Number)),
            select("head", heads, state.head, set("head", (v) => (v === "avg" ? "avg" : Number(v))))];
  }
  function caption(example) {
    if (!example.source) return "";
    let s = `"${example.source}" → "${example.prediction}"`;
    if (example.target && example.target !== example.prediction) s += `  (target "${example.target}": wrong)`;
    return s;
  }
  function mapTitle(runId, example, map, state, epoch) {
    const head = state.head === "avg" ? (map.heads > 1 ? `average of ${map.heads} heads` : "head 0") : `head ${state.head}`;
    return `${runId} · ${example.name} · ${map.name} · layer ${state.layer} · ${head} · ${epoch === "final" ? "final" : "epoch " + epoch}`;
  }

  // The final map of this layer and head drawn on its input (an image, a graph, speech frames),
  // as the run's pictures were drawn by attnlab: null when the run has none.
  function inputPicture(run, example, map, state) {
    const byLayer = run.inputs && run.inputs[example.name] && run.inputs[example.name][map.name];
    if (!byLayer || !byLayer[state.layer]) return null;
    const text = byLayer[state.layer][state.head === "avg" && map.heads > 1 ? "avg" : String(state.head === "avg" ? 0 : state.head)];
    if (!text) return null;
    const parsed = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
    return parsed.nodeName === "svg" ? document.importNode(parsed, true) : null;
  }

  // ---- explorer: one run ----
  function explorer(root) {
    const withMaps = data.runs.filter((r) => r.examples.length > 0);
    if (withMaps.length === 0) { root.append(html("p", { class: "muted" }, "No run recorded attention maps.")); return; }
    const open = data.opening && runById(data.opening.run) ? data.opening : null;
    const state = open ? { run: open.run, example: open.example, epoch: 1e9, map: open.map, layer: open.layer, head: open.head, ownScale: false }
      : { run: withMaps[0].id, example: "", epoch: 1e9, map: "", layer: 0, head: 0, ownScale: false };
    const opened = open ? html("p", { class: "muted opening" }, `Opened on ${open.run} · ${open.example} · ${open.map} · layer ${open.layer} · ` +
                                 `head ${open.head}: the head with the most structure (${fmt(open.structure)} on the scale above).`) : "";
    function redraw() {
      const { run, example, map } = settle(state);
      const view = example.views[state.epoch];
      const m = matrix(map, state.layer, state.head);
      const slider = html("input", { type: "range", min: 0, max: example.views.length - 1, value: state.epoch, "data-control": "epoch" });
      slider.addEventListener("input", () => { state.epoch = Number(slider.value); redraw(); });
      if (example.views.length === 1) slider.disabled = true;
      const epochLabel = view.epoch === "final" ? "final" : "epoch " + view.epoch;
      const controls = html("div", { class: "controls" },
        select("run", withMaps.map((r) => [r.id, r.id]), state.run, (v) => { state.run = v; redraw(); }),
        select("example", run.examples.map((e) => [e.name, exampleLabel(e)]), state.example, (v) => { state.example = v; redraw(); }),
        ...mapControls(state, map, view.maps, redraw),
        html("label", { class: "epoch" }, "snapshot ", slider, " ", html("output", { "data-readout": "epoch" }, epochLabel)));
      const title = mapTitle(run.id, example, map, state, view.epoch);
      const scale = { lo: 0, hi: state.ownScale ? Math.max(largest(m), 1e-6) : 1 };
      const sums = map.rows_sum_to_one === false ? { sums: rowSums(m) } : {};
      const heat = panel(title, heatmap(m, map.queries, map.keys, scale, map.axes, map.gold, sums),
                         { ownScale: state.ownScale, onScale: (on) => { state.ownScale = on; redraw(); } });
      const tokens = map.keys.length <= 60 && map.queries.length <= 60
        ? panel("tokens: " + title, tokenView(m, map.queries, map.keys))
        : html("p", { class: "muted" }, `token view left out: ${map.queries.length} × ${map.keys.length} is too many lines to read`);
      const note = example.views.length === 1 ? html("p", { class: "muted" }, "This example has no snapshots (record.epochs was not set): the slider has only the final maps.") : "";
      const drawn = inputPicture(run, example, map, state);
      const onInput = drawn ? html("div", { class: "pictures input-view" }, panel("on the input (final maps): " + title.replace(/ · [^·]*$/, ""), drawn)) : "";
      const unnormalised = map.rows_sum_to_one === false
        ? html("p", { class: "muted" }, "The rows of this map do not all sum to 1: its normalizer does not make them (the column Σ has each row's sum).") : "";
      root.replaceChildren(opened, controls, html("p", { class: "caption" }, caption(example)), note, unnormalised, onInput,
                           html("div", { class: "pictures" }, heat, tokens));
      Object.assign(root.dataset, { run: run.id, example: example.name, map: map.name, layer: state.layer, head: state.head, epoch: view.epoch });
    }
    redraw();
  }

  // ---- side by side: two runs on one example, and B - A ----
  function sideBySide(root) {
    const withMaps = data.runs.filter((r) => r.examples.length > 0);
    if (withMaps.length < 2) { root.append(html("p", { class: "muted" }, "Side by side needs two runs with attention maps.")); return; }
    const other = withMaps.find((r) => r.label !== withMaps[0].label) || withMaps[1];
    const state = { a: withMaps[0].id, b: other.id, run: withMaps[0].id, example: "", epoch: 1e9, map: "", layer: 0, head: 0, own: {} };
    function redraw() {
      state.run = state.a;
      const { example, map } = settle(state);
      const exampleB = exampleOf(runById(state.b), state.example);
      const mb = exampleB.views.slice(-1)[0].maps.find((m) => m.name === map.name);
      const controls = html("div", { class: "controls" },
        select("run A", withMaps.map((r) => [r.id, r.id]), state.a, (v) => { state.a = v; redraw(); }, "run-a"),
        select("run B", withMaps.map((r) => [r.id, r.id]), state.b, (v) => { state.b = v; redraw(); }, "run-b"),
        select("example", runById(state.a).examples.map((e) => [e.name, exampleLabel(e)]), state.example, (v) => { state.example = v; redraw(); }),
        ...mapControls(state, map, example.views[state.epoch].maps, redraw));
      if (!mb || state.layer >= mb.layers || (state.head !== "avg" && state.head >= mb.heads)) {
        root.replaceChildren(controls, html("p", { class: "muted" }, `${state.b} has no ${map.name} map of that layer and head.`));
        return;
      }
      root.replaceChildren(controls, predictions(state, example, exampleB), html("div", { class: "pictures aligned" }, ...comparedPanels(state, map, mb, redraw)));
      Object.assign(root.dataset, { a: state.a, b: state.b, example: state.example, map: map.name, layer: state.layer, head: state.head });
    }
    redraw();
  }
  // What each run predicted for the example (and the target), one line per run.
  function predictions(state, a, b) {
    if (a.prediction === undefined || (!a.source && !a.prediction)) return "";
    const line = (key, e) => html("div", { "data-run": key }, `${key.toUpperCase()} (${state[key]}): ${e.source ? `"${e.source}" → ` : ""}`,
      html("span", { class: "prediction" + (e.target && e.prediction !== e.target ? " wrong" : "") }, `"${e.prediction}"`));
    return html("div", { class: "predictions" }, line("a", a), line("b", b), a.target ? html("div", { "data-run": "target" }, `target: "${a.target}"`) : "");
  }
  // The maps of A and B and B - A on one grid of query (rows) and key (columns) positions, the
  // larger of the two in each direction; a place only one run has is null (grey).
  function comparedPanels(state, ma, mb, redraw) {
    const rows = Math.max(ma.rows, mb.rows), cols = Math.max(ma.columns, mb.columns);
    const grid = (f) => [...Array(rows).keys()].map((i) => [...Array(cols).keys()].map((j) => f(i, j)));
    const onGrid = (map) => { const m = matrix(map, state.layer, state.head); return grid((i, j) => (i < map.rows && j < map.columns ? m[i][j] : null)); };
    const a = onGrid(ma), b = onGrid(mb);
    const d = grid((i, j) => (a[i][j] === null || b[i][j] === null ? null : b[i][j] - a[i][j]));
    const labels = (names, n) => [...Array(n).keys()].map((i) => (i < names.length ? names[i] : "·"));
    const qa = labels(ma.queries, rows), qb = labels(mb.queries, rows), ka = labels(ma.keys, cols), kb = labels(mb.keys, cols);
    const both = (x, y) => x.map((l, i) => (l === y[i] ? l : `${l} | ${y[i]}`));
    const layout = sharedLayout([heatmapLayout(qa, ka), heatmapLayout(qb, kb), heatmapLayout(both(qa, qb), both(ka, kb))]);
    const gold = (map) => [...Array(rows).keys()].map((i) => (i < map.gold.length ? map.gold[i] : -1));
    const one = (key, map, m, queries, keys, scale, goldKeys) => {
      const where = `${ma.name} · layer ${state.layer} · ${state.head === "avg" ? "heads' mean" : "head " + state.head}`;
      const title = key === "diff" ? `B − A · ${where}` : `${key.toUpperCase()} · ${state[key]} · ${where}`;
      const own = !!state.own[key];
      const hi = own ? Math.max(largest(m.map((row) => row.filter((v) => v !== null))), 1e-6) : 1;
      const sums = map && map.rows_sum_to_one === false ? rowSums(m) : null;
      return panel(title, heatmap(m, queries, keys, Object.assign({ lo: 0, hi }, scale), ma.axes, goldKeys, { layout, sums }),
                   { ownScale: own, onScale: (on) => { state.own[key] = on; redraw(); } });
    };
    return [one("a", ma, a, qa, ka, {}, gold(ma)), one("b", mb, b, qb, kb, {}, gold(mb)), one("diff", null, d, both(qa, qb), both(ka, kb), { diverging: true }, [])];
  }

  // ---- curves: mean +- std over seeds, one colour per sweep point ----
  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  function ticks(lo, hi, log) {
    if (log) {
      const out = [];
      for (let p = Math.floor(Math.log10(lo)); p <= Math.ceil(Math.log10(hi)); ++p) out.push(Math.pow(10, p));
      return out.filter((t) => t >= lo * 0.999 && t <= hi * 1.001).length >= 2 ? out.filter((t) => t >= lo * 0.999 && t <= hi * 1.001) : [lo, hi];
    }
    const step = Math.pow(10, Math.floor(Math.log10((hi - lo) / 4 || 1)));
    const nice = [1, 2, 5, 10].map((f) => f * step).find((s) => (hi - lo) / s <= 6);
    const out = [];
    for (let t = Math.ceil(lo / nice) * nice; t <= hi + 1e-12; t += nice) out.push(+t.toPrecision(10));
    return out;
  }
  // x: "epoch" (a history) or "input length" (evaluation.lengths); groups keep x in .epoch
  function chart(groups, metric, log, x) {
    const width = 640, height = 340, left = 64, right = 190, top = 28, bottom = 44;
    const ok = (v) => v !== null && isFinite(v) && (!log || v > 0);
    let lo = Infinity, hi = -Infinity, x0 = Infinity, x1 = -Infinity;
    groups.forEach((g) => g.epoch.forEach((e, i) => {
      x0 = Math.min(x0, e); x1 = Math.max(x1, e);
      for (const v of [g.mean[i] - (g.std[i] || 0), g.mean[i] + (g.std[i] || 0), g.mean[i]]) if (ok(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    }));
    if (!(lo <= hi)) { lo = log ? 1 : 0; hi = log ? 10 : 1; }
    if (lo === hi) { lo = log ? lo / 2 : lo - 1; hi = log ? hi * 2 : hi + 1; }
    const fy = (v) => log ? Math.log10(v) : v;
    const X = (e) => left + (x1 > x0 ? ((e - x0) / (x1 - x0)) : 0.5) * (width - left - right);
    const Y = (v) => top + (1 - (fy(v) - fy(lo)) / (fy(hi) - fy(lo))) * (height - top - bottom);
    const figure = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "chart", "data-log": log ? "1" : "0" });
    figure.append(svg("rect", { width, height, fill: "white" }), text(left, 16, `${metric} ${x === "epoch" ? "per epoch" : "at each " + x}: mean ± std over seeds`, { "font-size": 13 }));
    for (const t of ticks(lo, hi, log)) {
      figure.append(svg("line", { x1: left, x2: width - right, y1: Y(t), y2: Y(t), stroke: "#eee" }),
                    text(left - 6, Y(t) + 4, fmt(t), { "text-anchor": "end", class: "y-tick" }));
    }
    for (const t of ticks(x0, x1 > x0 ? x1 : x0 + 1, false).filter((t) => Number.isInteger(t) && t >= x0 && t <= x1))
      figure.append(text(X(t), height - bottom + 16, t, { "text-anchor": "middle" }));
    figure.append(text((left + width - right) / 2, height - 8, x, { "text-anchor": "middle" }),
                  svg("rect", { x: left, y: top, width: width - left - right, height: height - top - bottom, fill: "none", stroke: "#999" }));
    groups.forEach((g, k) => curve(figure, g, PALETTE[k % PALETTE.length], X, Y, ok,
                                   { x: width - right + 10, y: top + 14 + 16 * k, marked: x !== "epoch" }));
    return figure;
  }
  function curve(figure, g, colour, X, Y, ok, legend) {
    const pts = g.epoch.map((e, i) => [e, g.mean[i], g.std[i] || 0]).filter((p) => ok(p[1]));
    const upper = pts.map((p) => [p[0], p[1] + p[2]]), lower = pts.map((p) => [p[0], p[1] - p[2]]).filter((p) => ok(p[1]));
    if (lower.length === upper.length && pts.some((p) => p[2] > 0))
      figure.append(svg("polygon", { class: "band", fill: colour, "fill-opacity": 0.18, stroke: "none",
        points: [...upper, ...lower.reverse()].map((p) => `${X(p[0])},${Y(p[1])}`).join(" ") }));
    const line = svg("polyline", { class: "mean", fill: "none", stroke: colour, "stroke-width": 2, "data-label": g.label,
                                   points: pts.map((p) => `${X(p[0])},${Y(p[1])}`).join(" ") });
    line.addEventListener("mousemove", (e) => showTip(e, g.label));
    line.addEventListener("mouseleave", hideTip);
    if (legend.marked)  // (the lengths: few, each measured on its own)
      for (const p of pts) figure.append(svg("circle", { class: "point", cx: X(p[0]), cy: Y(p[1]), r: 3, fill: colour }));
    figure.append(line, svg("rect", { x: legend.x, y: legend.y - 9, width: 12, height: 10, fill: colour }),
                  text(legend.x + 16, legend.y, g.label.slice(0, 28) + (pts.length ? "" : " (no finite value)")));
  }
  // One metric of `source` at a time (a select), against x.
  function curves(root, source, x, preferred, empty) {
    const names = Object.keys(source);
    if (names.length === 0) { root.append(html("p", { class: "muted" }, empty)); return; }
    const state = { metric: preferred.find((n) => names.includes(n)) || names[0], log: false };
    function redraw() {
      const log = html("input", { type: "checkbox", "data-control": "log-y" });
      log.checked = state.log;
      log.addEventListener("change", () => { state.log = log.checked; redraw(); });
      const controls = html("div", { class: "controls" },
        select("metric", names.map((n) => [n, n]), state.metric, (v) => { state.metric = v; redraw(); }), html("label", {}, log, " log y"));
      const figure = chart(source[state.metric], state.metric, state.log, x);
      root.replaceChildren(controls, panel(`${data.name} ${state.metric}`, figure));
      Object.assign(root.dataset, { metric: state.metric, log: state.log ? "1" : "0" });
    }
    redraw();
  }

  explorer(document.getElementById("explorer-panel"));
  sideBySide(document.getElementById("compare-panel"));
  curves(document.getElementById("curves-panel"), data.curves, "epoch", ["train_loss"], "No run has a per-epoch history.");
  const lengths = document.getElementById("lengths-panel");
  if (lengths) curves(lengths, data.lengths, "input length", ["valid_ppl", "valid_exact_match", "valid_accuracy"], "");
  window.attnlabReport = { svgText, data };
})();
