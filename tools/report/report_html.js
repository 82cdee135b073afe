/*
 * report_html.js — the interactive parts of `stepscope report --format html`, inlined by
 * report_html.c into every page (no network, no library).
 *
 * Per process section it reads the JSON document in the section's script element of type
 * "application/json" and class "ss-data" (report_html_data.c) and draws, as SVG:
 *   - the run chart: every step (or bins of steps) stacked by category, warm-up shaded,
 *     outliers marked, the median and the outlier limit as lines;
 *   - the timeline of the median and the slowest step: the attribution lane (what each
 *     instant counted as), then one lane per GPU stream and host thread, a time axis, zoom
 *     and pan (wheel, drag, buttons, W/A/S/D and 0), names on hover.
 * Clicking a finding (its row's data-cats: the categories it prices), a category row or a
 * legend entry highlights those categories on both charts. Tables with class "sortable" sort
 * by any column. Strings from the trace reach the page only as text nodes (textContent),
 * never as markup or attributes. The page's own errors are shown in it (#ss-errors), which
 * the headless test reads too.
 */
(function () {
  "use strict";

  const SVGNS = "http://www.w3.org/2000/svg";
  const errors = document.createElement("pre");
  errors.id = "ss-errors";
  errors.className = "ss-errors";
  (document.querySelector("main") || document.body).prepend(errors);

  function pageError(what) {
    errors.textContent += "page error: " + what + "\n";
  }
  window.addEventListener("error", (e) => pageError(e.message + " (line " + e.lineno + ")"));
  window.addEventListener("unhandledrejection", (e) => pageError(String(e.reason)));

  // ---- small helpers ----

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function sv(tag, attrs, text) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmtTime(us) {
    const a = Math.abs(us);
    if (a >= 100000) return (us / 1000).toFixed(1) + " ms";
    if (a >= 1000) return (us / 1000).toFixed(2) + " ms";
    if (a >= 1) return us.toFixed(a >= 100 ? 0 : 1) + " \u00b5s";
    return (us * 1000).toFixed(0) + " ns";
  }

  function fmtBytes(b) {
    if (b >= 4294967295) return "4 GiB or more";
    const units = ["B", "KiB", "MiB", "GiB"];
    let u = 0;
    while (b >= 1024 && u < units.length - 1) b /= 1024, u++;
    return (u ? b.toFixed(1) : String(b)) + " " + units[u];
  }

  // A round step (1, 2 or 5 times a power of ten) dividing span into about n parts.
  function niceStep(span, n) {
    const raw = span / Math.max(n, 1);
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  // An axis label in ms with as many decimals as the step needs.
  function tickLabel(us, step) {
    const d = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / 1000) + 1e-9)));
    return (us / 1000).toFixed(d) + " ms";
  }

  // ---- the tooltip: one for the page, lines of text (the first in bold) ----

  const tip = el("div", "ss-tip");
  document.body.appendChild(tip);

  function showTip(ev, lines) {
    tip.textContent = "";
    lines.forEach((line, i) => {
      if (i) tip.appendChild(document.createTextNode("\n"));
      tip.appendChild(i ? document.createTextNode(line) : el("b", null, line));
    });
    tip.style.display = "block";
    const r = tip.getBoundingClientRect();
    let x = ev.clientX + 14, y = ev.clientY + 16;
    if (x + r.width > window.innerWidth - 8) x = Math.max(8, ev.clientX - r.width - 14);
    if (y + r.height > window.innerHeight - 8) y = Math.max(8, ev.clientY - r.height - 12);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  function hideTip() {
    tip.style.display = "none";
  }

  // ---- sortable tables ----

  function cellKey(row, col, numeric) {
    const cell = row.cells[col];
    const t = cell ? cell.textContent.trim() : "";
    if (!numeric) return t.toLowerCase();
    const v = parseFloat(t);
    return isNaN(v) ? -Infinity : v;
  }

  function sortBy(table, th, col) {
    const numeric = th.classList.contains("n");
    const was = th.getAttribute("aria-sort");
    const dir = was ? (was === "ascending" ? "descending" : "ascending")
      : numeric ? "descending" : "ascending";
    for (const other of th.parentNode.cells) other.removeAttribute("aria-sort");
    th.setAttribute("aria-sort", dir);
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    const sign = dir === "ascending" ? 1 : -1;
    rows.sort((a, b) => {
      const x = cellKey(a, col, numeric), y = cellKey(b, col, numeric);
      return sign * (x < y ? -1 : x > y ? 1 : 0);
    });
    for (const r of rows) body.appendChild(r);
  }

  function makeSortable(table) {
    if (!table.tHead || !table.tBodies.length) return;
    Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
      th.title = "sort";
      th.addEventListener("click", () => sortBy(table, th, col));
    });
  }

  // ---- a section's state: its data and the highlighted categories ----

  function makeContext(sec, data) {
    const ctx = { sec: sec, data: data, hl: null, hlLabel: "", views: [], rows: [] };
    ctx.setHighlight = function (cats, label, row) {
      const same = ctx.hl && row && row.classList.contains("sel");
      ctx.hl = same || !cats.length ? null : new Set(cats);
      ctx.hlLabel = ctx.hl ? label : "";
      for (const r of ctx.rows) r.classList.toggle("sel", !!ctx.hl && r === row);
      for (const v of ctx.views) v.highlight();
    };
    return ctx;
  }

  function catNames(ctx, cats) {
    return cats.map((c) => ctx.data.cats[c].name).join(", ");
  }

  function linkRows(ctx) {
    for (const row of ctx.sec.querySelectorAll("tr[data-cats]")) {
      const cats = row.getAttribute("data-cats").split(" ").filter((x) => x !== "").map(Number);
      if (cats.some((c) => !(c >= 0 && c < ctx.data.cats.length))) continue;
      ctx.rows.push(row);
      const what = row.classList.contains("finding")
        ? "finding " + row.cells[0].textContent.trim() + ": " : "";
      row.addEventListener("click", () => ctx.setHighlight(cats, what + catNames(ctx, cats), row));
    }
  }

  // ---- the run chart ----

  function runChart(ctx, box) {
    const cats = ctx.data.cats, run = ctx.data.run, bins = run.bins;
    const H = 240, M = { l: 62, r: 14, t: 16, b: 44 };
    box.textContent = "";
    const svg = sv("svg", { class: "ss-chart", role: "img", "aria-label": "step time over the run" });
    const legend = el("div", "legend");
    box.append(svg, legend);
    const view = { svg: svg, paths: [], legendItems: [] };
    view.highlight = function () {
      svg.classList.toggle("hl", !!ctx.hl);
      for (const p of view.paths) p.classList.toggle("on", !!ctx.hl && ctx.hl.has(p.ssCat));
      for (const it of view.legendItems) it.classList.toggle("on", !!ctx.hl && ctx.hl.has(it.ssCat));
    };
    run.cats.forEach((c) => {
      const item = el("span", "item");
      item.ssCat = c;
      const sw = el("span", "sw");
      sw.style.background = cats[c].color;
      item.append(sw, document.createTextNode(cats[c].name));
      item.addEventListener("click", () => ctx.setHighlight([c], cats[c].name, null));
      legend.appendChild(item);
      view.legendItems.push(item);
    });
    view.draw = function () {
      drawRun(ctx, view, box.clientWidth, H, M);
      view.highlight();
    };
    return view;
  }

  // The bin holding step number n (bins of consecutive steps), or -1.
  function binOf(run, n) {
    const b = run.bins;
    for (let i = 0; i < b.length; i++)
      if (b[i][0] === n || (n > b[i][0] && (i + 1 === b.length || n < b[i + 1][0]))) return i;
    return -1;
  }

  function runScale(run) {
    const steady = run.bins.filter((b) => !b[4]);
    let top = 0;
    for (const b of steady.length ? steady : run.bins) top = Math.max(top, run.width > 1 ? b[3] : b[2]);
    top = Math.max(top * 1.06, run.outlier * 1.05, 1);
    const step = niceStep(top, 5);
    return { top: Math.ceil(top / step) * step, step: step };
  }

  function drawRunAxes(svg, run, g) {
    for (let v = 0; v <= g.top + 1e-9; v += g.step) {
      const y = g.y(v);
      svg.appendChild(sv("line", { class: "grid", x1: g.x0, x2: g.x1, y1: y, y2: y }));
      svg.appendChild(sv("text", { x: g.x0 - 6, y: y + 4, "text-anchor": "end" }, tickLabel(v, g.step)));
    }
    const n = run.bins.length, every = Math.max(1, Math.ceil(n / Math.max(2, (g.x1 - g.x0) / 90)));
    for (let i = 0; i < n; i += every) {
      const x = g.x0 + (i + 0.5) * g.bw;
      svg.appendChild(sv("line", { class: "axis", x1: x, x2: x, y1: g.y(0), y2: g.y(0) + 4 }));
      svg.appendChild(sv("text", { x: x, y: g.y(0) + 16, "text-anchor": "middle" }, String(run.bins[i][0])));
    }
    svg.appendChild(sv("text", { x: g.x1, y: g.y(0) + 32, "text-anchor": "end" },
      run.width > 1 ? "step (bins of " + run.width + " steps)" : "step"));
  }

  function drawWarmup(svg, run, g) {
    const b = run.bins;
    for (let i = 0; i < b.length; i++) {
      if (!b[i][4] || (i && b[i - 1][4])) continue;
      let j = i;
      while (j + 1 < b.length && b[j + 1][4]) j++;
      svg.appendChild(sv("rect", { class: "warm", x: g.x0 + i * g.bw, y: g.y(g.top),
        width: (j - i + 1) * g.bw, height: g.y(0) - g.y(g.top) }));
      svg.appendChild(sv("text", { x: g.x0 + i * g.bw, y: g.y(g.top) - 4 }, "warm-up"));
    }
  }

  // Two paths per category (steady bins, warm-up bins faded): the bins' pieces stacked in
  // category order, cut at the top.
  function drawStacks(ctx, view, run, g) {
    const base = new Float64Array(run.bins.length);
    const w = Math.max(g.bw - (g.bw > 4 ? 1 : 0), 0.5);
    view.paths = [];
    run.cats.forEach((c, k) => {
      const d = ["", ""];
      run.bins.forEach((b, i) => {
        const h = b[6][k];
        if (!(h > 0)) return;
        const lo = Math.min(base[i], g.top), hi = Math.min(base[i] + h, g.top);
        base[i] += h;
        if (hi <= lo) return;
        const x = g.x0 + i * g.bw + (g.bw - w) / 2;
        d[b[4] ? 1 : 0] += "M" + x.toFixed(2) + " " + g.y(hi).toFixed(2) + "h" + w.toFixed(2) +
          "V" + g.y(lo).toFixed(2) + "h" + (-w).toFixed(2) + "Z";
      });
      d.forEach((path, warm) => {
        if (!path && warm) return;
        const p = sv("path", { class: warm ? "catpath warmbar" : "catpath", d: path, fill: ctx.data.cats[c].color });
        p.ssCat = c;
        if (!warm) view.paths.push(p);
        g.svg.appendChild(p);
      });
    });
  }

  function drawMarks(ctx, run, g) {
    const svg = g.svg;
    if (run.width > 1) { // the slowest step of each bin
      let d = "";
      run.bins.forEach((b, i) => {
        if (b[3] <= g.top) d += "M" + (g.x0 + i * g.bw).toFixed(2) + " " + g.y(b[3]).toFixed(2) + "h" + g.bw.toFixed(2);
      });
      svg.appendChild(sv("path", { class: "binmax", d: d }));
    }
    run.bins.forEach((b, i) => {
      const x = g.x0 + (i + 0.5) * g.bw, top = b[2] > g.top;
      if (top) svg.appendChild(sv("path", { class: "clipped", d: "M" + (x - 4) + " " + (g.y(g.top) + 7) +
        "l4 -7l4 7Z" }));
      else if (b[5]) svg.appendChild(sv("path", { class: "outl", d: "M" + (x - 4) + " " +
        (g.y(b[2]) - 9) + "l8 0l-4 6Z" }));
    });
    const lines = [["median", run.median, "median " + fmtTime(run.median)],
      ["limit", run.outlier, "outlier above " + fmtTime(run.outlier)]];
    for (const [cls, v, label] of lines) {
      if (!(v > 0) || v > g.top) continue;
      svg.appendChild(sv("line", { class: cls, x1: g.x0, x2: g.x1, y1: g.y(v), y2: g.y(v) }));
      svg.appendChild(sv("text", { x: g.x1 - 4, y: g.y(v) - 4, "text-anchor": "end", class: "lbl" }, label));
    }
    for (const t of ctx.data.timelines || []) {
      const i = binOf(run, t.number);
      if (i < 0 || t.which === "step") continue;
      const x = g.x0 + (i + 0.5) * g.bw;
      svg.appendChild(sv("text", { x: x, y: g.y(0) + 30, "text-anchor": "middle", class: "group" },
        t.which === "median" ? "M" : "S"));
    }
  }

  function binLines(ctx, run, i) {
    const b = run.bins[i], cats = ctx.data.cats;
    const head = run.width > 1 && b[1] > 1 ? "steps " + b[0] + " and the next " + (b[1] - 1) : "step " + b[0];
    const lines = [head, (run.width > 1 ? "mean " : "") + fmtTime(b[2]) +
      (run.width > 1 ? ", slowest " + fmtTime(b[3]) : "")];
    if (b[4]) lines.push("warm-up (not in the statistics)");
    if (b[5]) lines.push(b[5] + " outlier step" + (b[5] > 1 ? "s" : "") + " (over " + fmtTime(run.outlier) + ")");
    const parts = run.cats.map((c, k) => [b[6][k], c]).filter((x) => x[0] > 0).sort((x, y) => y[0] - x[0]);
    for (const [v, c] of parts.slice(0, 5)) lines.push(cats[c].name + "  " + fmtTime(v));
    const drawn = (ctx.data.timelines || []).find((t) => binOf(run, t.number) === i);
    if (drawn) lines.push("click: draw " + (drawn.which === "step" ? "" : "this " + drawn.which + " ") +
      "step " + drawn.number + " below");
    return lines;
  }

  function drawRun(ctx, view, width, H, M) {
    const svg = view.svg, run = ctx.data.run;
    const W = Math.max(width, 480);
    svg.textContent = "";
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("height", H);
    const s = runScale(run);
    const g = { svg: svg, top: s.top, step: s.step, x0: M.l, x1: W - M.r,
      y: (v) => M.t + (H - M.t - M.b) * (1 - Math.min(v, s.top) / s.top) };
    g.bw = (g.x1 - g.x0) / run.bins.length;
    drawWarmup(svg, run, g);
    drawRunAxes(svg, run, g);
    drawStacks(ctx, view, run, g);
    drawMarks(ctx, run, g);
    svg.appendChild(sv("line", { class: "axis", x1: g.x0, x2: g.x1, y1: g.y(0), y2: g.y(0) }));
    runHover(ctx, svg, run, g);
  }

  function runHover(ctx, svg, run, g) {
    const hover = sv("rect", { class: "hover", x: 0, y: g.y(g.top), width: 0, height: g.y(0) - g.y(g.top) });
    const catcher = sv("rect", { x: g.x0, y: g.y(g.top), width: g.x1 - g.x0, height: g.y(0) - g.y(g.top),
      fill: "transparent" });
    svg.append(hover, catcher);
    const at = (ev) => {
      const r = svg.getBoundingClientRect();
      const x = (ev.clientX - r.left) * (svg.viewBox.baseVal.width / r.width);
      return Math.min(run.bins.length - 1, Math.max(0, Math.floor((x - g.x0) / g.bw)));
    };
    catcher.addEventListener("mousemove", (ev) => {
      const i = at(ev);
      hover.setAttribute("x", g.x0 + i * g.bw);
      hover.setAttribute("width", Math.max(g.bw, 1));
      showTip(ev, binLines(ctx, run, i));
    });
    catcher.addEventListener("mouseleave", () => {
      hover.setAttribute("width", 0);
      hideTip();
    });
    catcher.addEventListener("click", (ev) => {
      const i = at(ev);
      const k = (ctx.data.timelines || []).findIndex((t) => binOf(run, t.number) === i);
      if (k >= 0 && ctx.timeline) {
        ctx.timeline.select(k);
        ctx.timeline.box.scrollIntoView({ behavior: "smooth", block: "nearest" });
      }
    });
  }

  // ---- the timeline ----

  const LANE_LABEL_W = 200, AXIS_H = 26, ATTR_H = 24, LANE_H = 19, GROUP_GAP = 10;

  function laneLabel(lane) {
    if (lane[0] === 0) return "step attributed to";
    if (lane[0] === 1) return "GPU " + lane[1] + " \u00b7 stream " + lane[2];
    if (lane[0] === 3) return "memory (allocations, frees)";
    return "thread " + lane[1] + (lane[2] ? " (training)" : "") + " \u00b7 API";
  }

  // Lane rows: their y and height, a gap between the groups (attribution, GPU, host).
  function laneLayout(lanes) {
    const rows = [];
    let y = AXIS_H + 4;
    lanes.forEach((lane, i) => {
      if (i && lane[0] !== lanes[i - 1][0]) y += GROUP_GAP;
      const h = lane[0] === 0 ? ATTR_H : LANE_H;
      rows.push({ y: y, h: h });
      y += h + 2;
    });
    return { rows: rows, height: y + 8 };
  }

  function spanLines(ctx, tl, s) {
    const d = ctx.data, cat = d.cats[s[1]], lane = d.lanes[s[0]];
    const lines = [];
    if (s[4] >= 0) lines.push(d.names[s[4]]);
    if (s[5] === 3) lines.push("CUDA graph " + s[6]);
    lines.push(cat.name + ": " + cat.text);
    if (s[5] === 1 || s[5] === 2) lines.push(fmtBytes(s[6]) + (s[5] === 2 ? ", pageable host memory" : ""));
    if (s[5] === 4 || s[5] === 5) lines.push((s[5] === 4 ? "allocated " : "freed ") + fmtBytes(s[6]) + " on the device");
    lines.push(fmtTime(s[3]) + " at +" + fmtTime(s[2]) + " into step " + tl.number);
    lines.push(laneLabel(lane));
    if (!lines[0] || lines[0] === lines[1]) lines.shift();
    return lines;
  }

  // Every drawn step in a list (by step number), the median and slowest one click away, the
  // previous and next drawn step with the arrows or [ and ].
  function stepPicker(ctx, view, bar) {
    const tls = ctx.data.timelines;
    view.order = tls.map((t, k) => k).sort((a, b) => tls[a].number - tls[b].number);
    view.stepButtons = [];
    tls.forEach((t, k) => {
      if (t.which === "step") return;
      const b = el("button", null, t.which + " step " + t.number + " \u00b7 " + fmtTime(t.dur));
      b.type = "button";
      b.ssK = k;
      b.addEventListener("click", () => view.select(k));
      view.stepButtons.push(b);
    });
    bar.append(...view.stepButtons);
    view.picker = el("select", "steps");
    view.picker.title = "any step drawn (" + tls.length + ")";
    for (const k of view.order) {
      const t = tls[k];
      const o = el("option", null, "step " + t.number + " \u00b7 " + fmtTime(t.dur) +
        (t.which === "step" ? "" : " \u00b7 " + t.which) + (t.warmup ? " \u00b7 warm-up" : ""));
      o.value = String(k);
      view.picker.appendChild(o);
    }
    view.picker.addEventListener("change", () => view.select(Number(view.picker.value)));
    const go = (d) => {
      const at = view.order.indexOf(view.cur) + d;
      if (at >= 0 && at < view.order.length) view.select(view.order[at]);
    };
    view.step = go;
    for (const [text, title, d] of [["\u2039", "previous step ([)", -1], ["\u203a", "next step (])", 1]]) {
      const b = el("button", null, text);
      b.type = "button";
      b.title = title;
      b.addEventListener("click", () => go(d));
      bar.appendChild(b);
    }
    bar.insertBefore(view.picker, bar.lastChild);
  }

  function timelineToolbar(ctx, view) {
    const bar = el("div", "ss-toolbar");
    stepPicker(ctx, view, bar);
    const acts = [["\u2212", "zoom out (S)", () => view.zoom(1 / 1.6)], ["+", "zoom in (W)", () => view.zoom(1.6)],
      ["fit", "whole step (0)", () => view.fit()], ["\u25c0", "pan left (A)", () => view.pan(-0.25)],
      ["\u25b6", "pan right (D)", () => view.pan(0.25)]];
    for (const [text, title, fn] of acts) {
      const b = el("button", null, text);
      b.type = "button";
      b.title = title;
      b.addEventListener("click", fn);
      bar.appendChild(b);
    }
    view.hlNote = el("span", "hlnote");
    view.info = el("span", "info");
    bar.append(view.hlNote, view.info);
    return bar;
  }

  function timeline(ctx, box) {
    const d = ctx.data;
    const view = { box: box, cur: 0, v0: 0, v1: 1, rects: [] };
    box.textContent = "";
    box.appendChild(timelineToolbar(ctx, view));
    const layout = laneLayout(d.lanes);
    const svg = sv("svg", { class: "ss-chart", role: "img", "aria-label": "timeline of a step" });
    view.svg = svg;
    view.layout = layout;
    box.appendChild(svg);
    const notes = el("p", "note");
    view.notes = notes;
    box.appendChild(notes);
    view.select = (k) => selectStep(ctx, view, k);
    view.zoom = (f, px) => zoomView(view, f, px);
    view.pan = (frac) => panView(view, (view.v1 - view.v0) * frac);
    view.fit = () => {
      view.v0 = 0;
      view.v1 = d.timelines[view.cur].dur || 1;
      render(view);
    };
    view.draw = () => {
      buildFrame(ctx, view);
      render(view);
    };
    view.highlight = () => highlightSpans(ctx, view);
    timelineEvents(ctx, view);
    return view;
  }

  function buildFrame(ctx, view) {
    const d = ctx.data, svg = view.svg, L = view.layout;
    view.W = Math.max(view.box.clientWidth, 560);
    svg.textContent = "";
    svg.setAttribute("viewBox", "0 0 " + view.W + " " + L.height);
    svg.setAttribute("height", L.height);
    const id = "ss-clip-" + ctx.index;
    const clip = sv("clipPath", { id: id });
    clip.appendChild(sv("rect", { x: LANE_LABEL_W, y: 0, width: view.W - LANE_LABEL_W, height: L.height }));
    const defs = sv("defs", {});
    defs.appendChild(clip);
    svg.appendChild(defs);
    L.rows.forEach((r) => svg.appendChild(sv("rect", { class: "lanebg", x: LANE_LABEL_W, y: r.y,
      width: view.W - LANE_LABEL_W, height: r.h })));
    view.grid = sv("g", {});
    view.spans = sv("g", { "clip-path": "url(#" + id + ")" });
    view.axis = sv("g", {});
    svg.append(view.grid, view.spans, view.axis);
    d.lanes.forEach((lane, i) => {
      const r = L.rows[i];
      svg.appendChild(sv("text", { class: lane[0] === 0 ? "lane group" : "lane", x: 6, y: r.y + r.h / 2 + 4 },
        laneLabel(lane)));
    });
    fillSpans(ctx, view);
  }

  function fillSpans(ctx, view) {
    const t = ctx.data.timelines[view.cur], L = view.layout, cats = ctx.data.cats;
    view.rects = t.spans.map((s, i) => {
      const r = L.rows[s[0]];
      const inset = ctx.data.lanes[s[0]][0] === 0 ? 0 : 2;
      const rect = sv("rect", { class: "span", y: r.y + inset, height: r.h - 2 * inset, fill: cats[s[1]].color });
      rect.ssIndex = i;
      view.spans.appendChild(rect);
      return rect;
    });
    highlightSpans(ctx, view);
  }

  function render(view) {
    const t0 = view.v0, k = (view.W - LANE_LABEL_W) / (view.v1 - view.v0);
    const xmin = LANE_LABEL_W - 2, xmax = view.W + 2;
    const spans = view.t.spans;
    view.rects.forEach((rect, i) => {
      const s = spans[i];
      let x = LANE_LABEL_W + (s[2] - t0) * k, x2 = x + Math.max(s[3] * k, 0.7);
      x = Math.max(x, xmin);
      x2 = Math.min(x2, xmax);
      rect.setAttribute("x", x.toFixed(2));
      rect.setAttribute("width", Math.max(x2 - x, 0).toFixed(2));
    });
    renderAxis(view, k);
  }

  function renderAxis(view, k) {
    const step = niceStep(view.v1 - view.v0, (view.W - LANE_LABEL_W) / 110);
    const H = view.layout.height;
    view.grid.textContent = "";
    view.axis.textContent = "";
    view.axis.appendChild(sv("rect", { class: "labelbg", x: 0, y: 0, width: view.W, height: AXIS_H }));
    for (let v = Math.ceil(view.v0 / step) * step; v <= view.v1 + 1e-9; v += step) {
      const x = LANE_LABEL_W + (v - view.v0) * k;
      view.grid.appendChild(sv("line", { class: "grid", x1: x, x2: x, y1: AXIS_H, y2: H }));
      view.axis.appendChild(sv("line", { class: "axis", x1: x, x2: x, y1: AXIS_H - 5, y2: AXIS_H }));
      const anchor = x > view.W - 40 ? "end" : "middle";
      view.axis.appendChild(sv("text", { x: x, y: AXIS_H - 9, "text-anchor": anchor }, tickLabel(v, step)));
    }
    view.axis.appendChild(sv("line", { class: "axis", x1: LANE_LABEL_W, x2: view.W, y1: AXIS_H, y2: AXIS_H }));
    view.axis.appendChild(sv("text", { x: 6, y: AXIS_H - 9, class: "group" },
      "+" + fmtTime(view.v0) + " \u2026 " + fmtTime(view.v1)));
  }

  function selectStep(ctx, view, k) {
    const d = ctx.data;
    view.cur = k;
    view.t = d.timelines[k];
    view.v0 = 0;
    view.v1 = view.t.dur || 1;
    view.stepButtons.forEach((b) => b.classList.toggle("on", b.ssK === k));
    if (view.picker) view.picker.value = String(k);
    const t = view.t;
    view.info.textContent = "step " + t.number + (t.warmup ? " (warm-up)" : "") + ": " + t.spans.length +
      " spans \u00b7 " + t.kernels + " kernels, " + t.launches + " launches";
    const notes = [];
    if (t.dropped) notes.push(t.dropped + " intervals of this step were not kept (too many).");
    if (t.cut) notes.push(t.cut + " intervals are in lanes past the first " + d.lanes.length + " (not drawn).");
    view.notes.textContent = notes.join(" ");
    if (view.spans) {
      view.spans.textContent = "";
      fillSpans(ctx, view);
      render(view);
    }
  }

  function zoomView(view, f, px) {
    const span = view.v1 - view.v0, dur = view.t.dur || 1;
    const frac = px === undefined ? 0.5 : Math.min(1, Math.max(0, (px - LANE_LABEL_W) / (view.W - LANE_LABEL_W)));
    const c = view.v0 + span * frac;
    const next = Math.min(dur, Math.max(span / f, Math.min(0.5, dur)));
    view.v0 = Math.min(Math.max(c - next * frac, 0), dur - next);
    view.v1 = view.v0 + next;
    render(view);
  }

  function panView(view, dt) {
    const span = view.v1 - view.v0, dur = view.t.dur || 1;
    view.v0 = Math.min(Math.max(view.v0 + dt, 0), dur - span);
    view.v1 = view.v0 + span;
    render(view);
  }

  // The spans of the highlighted categories stand out; the note says how much of this step
  // the attribution gave them.
  function highlightSpans(ctx, view) {
    const spans = view.t ? view.t.spans : [], lanes = ctx.data.lanes;
    view.svg.classList.toggle("hl", !!ctx.hl);
    view.rects.forEach((r, i) => r.classList.toggle("on", !!ctx.hl && ctx.hl.has(spans[i][1])));
    if (!view.hlNote) return;
    let us = 0;
    for (const s of spans) if (ctx.hl && lanes[s[0]][0] === 0 && ctx.hl.has(s[1])) us += s[3];
    view.hlNote.textContent = ctx.hl ? "highlighted: " + ctx.hlLabel + " \u2014 " + fmtTime(us) +
      " of this step (" + (100 * us / (view.t.dur || 1)).toFixed(1) + " %)" : "";
  }

  // The pointer's x in the SVG's own units.
  function svgX(view, ev) {
    const r = view.svg.getBoundingClientRect();
    return (ev.clientX - r.left) * (view.W / r.width);
  }

  function timelineEvents(ctx, view) {
    const svg = view.svg;
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY))
        view.pan((ev.deltaX || ev.deltaY) / 800);
      else view.zoom(Math.exp(-ev.deltaY * 0.002), svgX(view, ev));
    }, { passive: false });
    let drag = null;
    svg.addEventListener("mousedown", (ev) => {
      drag = { x: svgX(view, ev), v0: view.v0 };
      svg.classList.add("drag");
      ev.preventDefault(); // no text selection; the keys still reach the timeline:
      view.box.focus({ preventScroll: true });
    });
    window.addEventListener("mousemove", (ev) => {
      if (!drag) return;
      const k = (view.W - LANE_LABEL_W) / (view.v1 - view.v0);
      panView(view, drag.v0 - (svgX(view, ev) - drag.x) / k - view.v0);
    });
    window.addEventListener("mouseup", () => {
      drag = null;
      svg.classList.remove("drag");
    });
    svg.addEventListener("mouseover", (ev) => {
      const i = ev.target.ssIndex;
      if (i === undefined || drag) return hideTip();
      showTip(ev, spanLines(ctx, view.t, view.t.spans[i]));
    });
    svg.addEventListener("mouseleave", hideTip);
    view.box.addEventListener("keydown", (ev) => timelineKey(view, ev));
  }

  function timelineKey(view, ev) {
    const keys = { w: () => view.zoom(1.6), "+": () => view.zoom(1.6), "=": () => view.zoom(1.6),
      s: () => view.zoom(1 / 1.6), "-": () => view.zoom(1 / 1.6), a: () => view.pan(-0.2),
      ArrowLeft: () => view.pan(-0.2), d: () => view.pan(0.2), ArrowRight: () => view.pan(0.2),
      "0": () => view.fit(), "[": () => view.step(-1), "]": () => view.step(1) };
    const fn = keys[ev.key.length === 1 ? ev.key.toLowerCase() : ev.key];
    if (!fn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    ev.preventDefault();
    fn();
  }

  // ---- the page ----

  function initSection(sec, index) {
    const node = sec.querySelector("script.ss-data");
    if (!node) return;
    const ctx = makeContext(sec, JSON.parse(node.textContent));
    ctx.index = index;
    const runBox = sec.querySelector(".ss-run"), tlBox = sec.querySelector(".ss-tl");
    if (runBox && ctx.data.run && ctx.data.run.bins.length) ctx.views.push(runChart(ctx, runBox));
    if (tlBox && ctx.data.timelines && ctx.data.timelines.length) {
      ctx.timeline = timeline(ctx, tlBox);
      ctx.views.push(ctx.timeline);
      ctx.timeline.select(0);
    }
    linkRows(ctx);
    for (const v of ctx.views) v.draw();
    let pending = 0;
    window.addEventListener("resize", () => {
      clearTimeout(pending);
      pending = setTimeout(() => ctx.views.forEach((v) => v.draw()), 120);
    });
  }

  // Several sections (a folder, the ranks of a job): a list at the top that jumps to each.
  function sectionIndex() {
    const secs = Array.from(document.querySelectorAll("main > section"));
    if (secs.length < 3) return;
    const nav = el("nav", "ss-nav");
    nav.appendChild(el("span", "note", "sections:"));
    for (const sec of secs) {
      const h = sec.querySelector("h2");
      const b = el("button", null, h ? h.textContent : "section");
      b.type = "button";
      b.addEventListener("click", () => sec.scrollIntoView({ behavior: "smooth", block: "start" }));
      nav.appendChild(b);
    }
    secs[0].before(nav);
  }

  function init() {
    sectionIndex();
    document.querySelectorAll("table.sortable").forEach(makeSortable);
    for (const cell of document.querySelectorAll("td.name"))
      cell.addEventListener("click", () => cell.classList.toggle("open"));
    document.querySelectorAll("main > section").forEach((sec, i) => {
      try {
        initSection(sec, i);
      } catch (e) {
        pageError(String(e && e.stack ? e.stack : e));
      }
    });
    document.documentElement.setAttribute("data-ss-ready", "1");
  }

  init();
})();
