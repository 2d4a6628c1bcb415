// The dtb explorer page: a board, the value of its position, every move with
// its value, the best line, and a material's statistics, all from the JSON
// API of `dtb serve` (docs/explorer.md); under the move-count draw rules on
// request, with the counts of the game as fields that follow the moves
// played. No network beyond that server.
"use strict";

const state = {
  variants: [],          // from /api/variants
  variant: null,         // its name
  size: 8,               // board size
  position: null,        // {side: "W"|"B", pieces: Map square -> "wm"|"wk"|"bm"|"bk"}
  probe: null,           // the last /api/probe answer
  line: [],              // best line: [{fen, move}] from the position shown first
  lineAt: 0,
  tool: null,            // the editor's piece, or null
  rules: false,          // answer under the move-count draw rules too
  counts: { K: "", E: "", T: "" },  // the counts of the game, "" when not given (the count starts now)
};

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

// --- positions -------------------------------------------------------------

function parseFen(fen) {
  const parts = fen.trim().replace(/\.$/, "").split(":");
  const position = { side: parts[0].toUpperCase(), pieces: new Map() };
  for (const part of parts.slice(1)) {
    const colour = part[0].toUpperCase() === "W" ? "w" : "b";
    for (const item of part.slice(1).split(",")) {
      if (!item) continue;
      const king = item[0].toUpperCase() === "K";
      const range = (king ? item.slice(1) : item).split("-").map(Number);
      for (let s = range[0]; s <= (range[1] || range[0]); s++) position.pieces.set(s, colour + (king ? "k" : "m"));
    }
  }
  return position;
}

function toFen(position) {
  const side = (colour) => [...position.pieces.entries()]
    .filter(([, p]) => p[0] === colour).sort((a, b) => a[0] - b[0])
    .map(([s, p]) => (p[1] === "k" ? "K" : "") + s).join(",");
  return `${position.side}:W${side("w")}:B${side("b")}`;
}

// Material name as dtb writes it: White's kings and men, "v", Black's.
function materialOf(position) {
  const count = (p) => [...position.pieces.values()].filter((x) => x === p).length;
  return "K".repeat(count("wk")) + "M".repeat(count("wm")) + "v" + "K".repeat(count("bk")) + "M".repeat(count("bm"));
}

// Dark square s (1-based) of an n x n board: row from the top, column from the left.
function squareAt(s, n) {
  const half = n / 2, row = Math.floor((s - 1) / half), i = (s - 1) % half;
  return { row, col: 2 * i + (row % 2 === 0 ? 1 : 0) };
}

// --- drawing ---------------------------------------------------------------

function element(name, attributes, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// An SVG board of size n with `position`; onSquare(s) makes squares clickable.
function drawBoard(position, n, { numbers = true, onSquare = null } = {}) {
  const svg = element("svg", { viewBox: `0 0 ${n} ${n}`, role: "img" });
  svg.setAttribute("aria-label", toFen(position));
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++) element("rect", { x: c, y: r, width: 1, height: 1, class: (r + c) % 2 ? "dark" : "light" }, svg);
  for (let s = 1; s <= (n * n) / 2; s++) {
    const { row, col } = squareAt(s, n);
    const g = element("g", { "data-square": s }, svg);
    if (numbers) {
      const t = element("text", { x: col + 0.05, y: row + 0.25, class: "number" }, g);
      t.textContent = s;
    }
    const piece = position.pieces.get(s);
    if (piece) {
      element("circle", { cx: col + 0.5, cy: row + 0.5, r: 0.38, class: piece[0] === "w" ? "white-piece" : "black-piece" }, g);
      if (piece[1] === "k") element("circle", { cx: col + 0.5, cy: row + 0.5, r: 0.18, class: "crown" }, g);
    }
    if (onSquare) {
      const hit = element("rect", { x: col, y: row, width: 1, height: 1, fill: "transparent", "data-hit": s }, g);
      hit.style.cursor = "pointer";
      hit.addEventListener("click", () => onSquare(s));
    }
  }
  return svg;
}

function valueText(v, plies) {
  if (v === "draw") return "draw";
  return `${v} in ${plies} ${plies === 1 ? "ply" : "plies"}`;
}

// The value of a move for the side that makes it, from the value after it.
function moverValue(m) {
  return m.value === "loss" ? "win" : m.value === "win" ? "loss" : "draw";
}

// --- the position view -----------------------------------------------------

async function api(path) {
  const response = await fetch(path);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

// "K=12,E=3" from the counts given, as the API takes them.
function countsText() {
  return Object.entries(state.counts).filter(([, v]) => v !== "").map(([k, v]) => `${k}=${v}`).join(",");
}

function setCounts(text) {
  state.counts = { K: "", E: "", T: "" };
  for (const item of (text || "").split(",")) {
    const [k, v] = item.split("=");
    if (k in state.counts) state.counts[k] = v;
  }
  $("count-k").value = state.counts.K;
  $("count-e").value = state.counts.E;
  $("count-t").value = state.counts.T;
}

function probePath(fen) {
  const rules = state.rules ? `&count=${encodeURIComponent(countsText())}` : "";
  return `api/probe?variant=${encodeURIComponent(state.variant)}&fen=${encodeURIComponent(fen)}${rules}`;
}

// "win, rule distance 3" or "draw (cursed win)": a value under the rules with
// its class; the rule distance is the plies until the count is resolved
// (by the win, or by a reset into a position won again; docs/rules.md).
function ruleText(r) {
  const marked = r.class === "cursed win" || r.class === "blessed loss" ? ` (${r.class})` : "";
  return r.value === "draw" ? `draw${marked}` : `${r.value}${marked}, rule distance ${r.plies}`;
}

async function show(fen, { keepLine = false } = {}) {
  $("error").textContent = "";
  let answer;
  try {
    answer = await api(probePath(fen));
  } catch (e) {
    state.position = parseFenSafely(fen);
    state.probe = null;
    $("error").textContent = e.message;
    $("value").textContent = "";
    $("moves").replaceChildren();
    render();
    return;
  }
  state.probe = answer;
  state.position = parseFen(answer.fen);
  $("fen").value = answer.fen;
  const rules = state.rules ? `&count=${encodeURIComponent(countsText())}` : "";
  history.replaceState(null, "", `#variant=${state.variant}&fen=${encodeURIComponent(answer.fen)}${rules}`);
  if (!keepLine) {
    state.line = [{ fen: answer.fen, move: null }];
    state.lineAt = 0;
    extendLine(answer);
  }
  render();
}

function parseFenSafely(fen) {
  try { return parseFen(fen); } catch { return { side: "W", pieces: new Map() }; }
}

// The best line from the first position: the best move, again and again,
// until the game ends (a draw: one move that keeps it).
async function extendLine(first) {
  const line = state.line;
  let answer = first;
  for (let guard = 0; guard < 1000 && answer.moves.length > 0; guard++) {
    const best = answer.moves[0];
    line.push({ fen: best.fen, move: best.move });
    if (answer.value === "draw") break;
    answer = await api(`api/probe?variant=${encodeURIComponent(state.variant)}&fen=${encodeURIComponent(best.fen)}`);
    if (state.line !== line) return;  // another position was chosen meanwhile
  }
  renderLine();
}

function render() {
  const p = state.position;
  $("board").replaceChildren(drawBoard(p, state.size, { onSquare: state.tool ? edit : null }));
  const side = p.side === "W" ? "White" : "Black";
  if (state.probe) {
    $("value").textContent = `${side} to move: ${valueText(state.probe.value, state.probe.plies)}`;
    $("value").className = state.probe.value;
    const r = state.probe.rules;
    $("rules-value").replaceChildren();
    if (r) {
      const v = document.createElement("div");
      v.textContent = `under the rules: ${ruleText(r)}`;
      v.className = `${r.value} ${r.class === "cursed win" ? "cursed" : r.class === "blessed loss" ? "blessed" : ""}`;
      const note = document.createElement("div");
      note.className = "rule-note";
      note.textContent = `${r.rule}${r.road_rule ? " with " + r.road_rule : ""}: ${r.plies_left} plies left; ` +
        `rule distance ${valueText(r.distance.value, r.distance.plies)}`;
      $("rules-value").append(v, note);
    }
    const list = $("moves");
    list.replaceChildren();
    for (const m of state.probe.moves) {
      const li = document.createElement("li");
      const v = moverValue(m);
      li.className = v;
      li.dataset.fen = m.fen;
      li.textContent = `${m.move}: ${valueText(v, m.plies === null ? null : m.plies + 1)}`;
      if (m.rules) {
        // The value for the mover under the rules, and the counts after the move.
        const mover = { ...m.rules, value: moverValue(m.rules), plies: m.rules.plies === null ? null : m.rules.plies + 1,
          class: { "win": "loss", "loss": "win", "cursed win": "blessed loss", "blessed loss": "cursed win", "draw": "draw" }[m.rules.class] };
        const span = document.createElement("span");
        span.className = `${mover.value} ${mover.class === "cursed win" ? "cursed" : mover.class === "blessed loss" ? "blessed" : ""}`;
        span.textContent = ` · rules: ${ruleText(mover)} [${m.rules.counts}]`;
        li.appendChild(span);
      }
      li.addEventListener("click", () => {
        if (m.rules) setCounts(m.rules.counts);  // the counts follow the game
        show(m.fen);
      });
      list.appendChild(li);
    }
    if (!state.probe.moves.length) list.textContent = "no legal move";
  }
  const material = materialOf(p);
  $("material-link").textContent = `${material}: statistics, distances, longest wins`;
  $("material-link").href = `#variant=${state.variant}&material=${material}`;
  renderLine();
}

function renderLine() {
  const box = $("line");
  box.replaceChildren();
  state.line.forEach((step, i) => {
    if (!step.move) return;
    const span = document.createElement("span");
    span.textContent = step.move;
    if (i === state.lineAt) span.className = "current";
    span.style.cursor = "pointer";
    span.addEventListener("click", () => stepTo(i));
    box.appendChild(span);
  });
  $("line-step").textContent = `${state.lineAt} / ${Math.max(0, state.line.length - 1)}`;
}

function stepTo(i) {
  if (i < 0 || i >= state.line.length) return;
  state.lineAt = i;
  show(state.line[i].fen, { keepLine: true });
}

// --- the editor --------------------------------------------------------------

function edit(square) {
  const p = state.position;
  if (state.tool === "none") p.pieces.delete(square);
  else p.pieces.set(square, state.tool);
  show(toFen(p));
}

function setupEditor() {
  for (const button of document.querySelectorAll(".piece-button"))
    button.addEventListener("click", () => {
      const same = state.tool === button.dataset.piece;
      state.tool = same ? null : button.dataset.piece;
      for (const b of document.querySelectorAll(".piece-button")) b.classList.toggle("selected", b === button && !same);
      render();
    });
  $("side").addEventListener("click", () => {
    state.position.side = state.position.side === "W" ? "B" : "W";
    show(toFen(state.position));
  });
  $("clear").addEventListener("click", () => {
    state.position = { side: state.position.side, pieces: new Map() };
    state.probe = null;
    $("value").textContent = "";
    $("moves").replaceChildren();
    $("fen").value = toFen(state.position);
    render();
  });
  $("rules-on").addEventListener("change", () => {
    state.rules = $("rules-on").checked;
    show(toFen(state.position));
  });
  for (const [id, key] of [["count-k", "K"], ["count-e", "E"], ["count-t", "T"]])
    $(id).addEventListener("change", () => {
      state.counts[key] = $(id).value;
      if (state.rules) show(toFen(state.position));
    });
  $("line-start").addEventListener("click", () => stepTo(0));
  $("line-back").addEventListener("click", () => stepTo(state.lineAt - 1));
  $("line-forward").addEventListener("click", () => stepTo(state.lineAt + 1));
  $("line-end").addEventListener("click", () => stepTo(state.line.length - 1));
}

// --- the material view ------------------------------------------------------

// Bars of wins (up) and losses (down) by distance in plies.
function histogramChart(histogram) {
  const all = [...histogram.win, ...histogram.loss];
  const maxPlies = Math.max(1, ...all.map(([p]) => p));
  const maxCount = Math.max(1, ...all.map(([, c]) => c));
  const w = 760, h = 240, left = 50, mid = h / 2, bar = Math.max(1, (w - left - 10) / (maxPlies + 1));
  const svg = element("svg", { viewBox: `0 0 ${w} ${h + 20}`, class: "chart", role: "img" });
  svg.setAttribute("aria-label", "wins and losses by distance in plies");
  const scale = (c) => (c / maxCount) * (mid - 10);
  for (const [p, c] of histogram.win) element("rect", { x: left + p * bar, y: mid - scale(c), width: bar * 0.9, height: scale(c), class: "win-bar" }, svg).appendChild(title(`win in ${p}: ${c}`));
  for (const [p, c] of histogram.loss) element("rect", { x: left + p * bar, y: mid, width: bar * 0.9, height: scale(c), class: "loss-bar" }, svg).appendChild(title(`loss in ${p}: ${c}`));
  element("line", { x1: left, y1: mid, x2: w, y2: mid, stroke: "#333" }, svg);
  const label = (x, y, text) => { const t = element("text", { x, y }, svg); t.textContent = text; };
  label(0, 14, `wins ${maxCount}`);
  label(0, h - 4, "losses");
  for (let p = 0; p <= maxPlies; p += Math.max(1, Math.ceil(maxPlies / 10))) label(left + p * bar, h + 14, p);
  return svg;
}

function title(text) {
  const t = document.createElementNS(SVG, "title");
  t.textContent = text;
  return t;
}

async function showMaterial(material) {
  $("position-view").hidden = true;
  $("material-view").hidden = false;
  $("material-title").textContent = `${state.variant} ${material}`;
  $("material-status").textContent = "counting every position of the material...";
  $("material-sides").replaceChildren();
  let s;
  try {
    s = await api(`api/stats?variant=${encodeURIComponent(state.variant)}&material=${encodeURIComponent(material)}`);
  } catch (e) {
    $("material-status").textContent = e.message;
    return;
  }
  $("material-status").textContent = `${s.positions_per_side.toLocaleString()} positions for each side to move`;
  for (const [key, name] of [["white_to_move", "White to move"], ["black_to_move", "Black to move"]]) {
    const side = s[key];
    const div = document.createElement("div");
    div.className = "side";
    const h = document.createElement("h3");
    h.textContent = name;
    div.appendChild(h);
    const table = document.createElement("table");
    table.className = "counts";
    table.innerHTML = "<tr><th>wins</th><th>draws</th><th>losses</th><th>longest win</th></tr>";
    const row = table.insertRow();
    for (const v of [side.win, side.draw, side.loss]) row.insertCell().textContent = v.toLocaleString();
    row.insertCell().textContent = side.max_dtw_win === null ? "none" : `${side.max_dtw_win} plies (${side.count_at_max_win} positions)`;
    div.appendChild(table);
    div.appendChild(histogramChart(side.histogram));
    if (side.example_max_win) {
      const figure = document.createElement("figure");
      figure.className = "diagram";
      const link = document.createElement("a");
      link.href = `#variant=${state.variant}&fen=${encodeURIComponent(side.example_max_win)}`;
      link.appendChild(drawBoard(parseFen(side.example_max_win), state.size, { numbers: false }));
      figure.appendChild(link);
      const caption = document.createElement("figcaption");
      caption.textContent = `longest win, ${side.max_dtw_win} plies: ${side.example_max_win}`;
      figure.appendChild(caption);
      const diagrams = document.createElement("div");
      diagrams.className = "diagrams";
      diagrams.appendChild(figure);
      div.appendChild(diagrams);
    }
    $("material-sides").appendChild(div);
  }
  if (state.rules) showRuleStats(material);
}

// Wins left when the ending arises with c plies already counted, c = 0..limit.
function survivalChart(survival) {
  const w = 760, h = 160, left = 50, top = Math.max(1, survival[0] || 0);
  const bar = (w - left - 10) / Math.max(1, survival.length);
  const svg = element("svg", { viewBox: `0 0 ${w} ${h + 20}`, class: "chart survival", role: "img" });
  svg.setAttribute("aria-label", "wins left with the count already at c plies");
  survival.forEach((n, c) => {
    const height = (n / top) * (h - 20);
    element("rect", { x: left + c * bar, y: h - height, width: bar * 0.9, height, class: "win-bar" }, svg)
      .appendChild(title(`count at ${c}: ${n} wins left`));
  });
  const label = (x, y, text) => { const t = element("text", { x, y }, svg); t.textContent = text; };
  label(0, 14, `wins ${top}`);
  for (let c = 0; c < survival.length; c += Math.max(1, Math.ceil(survival.length / 10))) label(left + c * bar, h + 14, c);
  return svg;
}

// The five classes and the survival curve of each side under the rules.
async function showRuleStats(material) {
  const box = document.createElement("div");
  box.id = "rule-stats";
  $("material-sides").appendChild(box);
  let s;
  try {
    s = await api(`api/stats?variant=${encodeURIComponent(state.variant)}&material=${encodeURIComponent(material)}&rules=1`);
  } catch (e) {
    box.textContent = `under the rules: ${e.message}`;
    return;
  }
  const h = document.createElement("h3");
  h.textContent = `Under the draw rules: ${s.rule.article}${s.rule.road_article ? " with " + s.rule.road_article : ""}`;
  box.appendChild(h);
  for (const [key, name] of [["white_to_move", "White to move"], ["black_to_move", "Black to move"]]) {
    const side = s[key];
    const p = document.createElement("p");
    p.textContent = `${name}, the count from zero:`;
    box.appendChild(p);
    const table = document.createElement("table");
    table.className = "counts rule-classes";
    table.innerHTML = "<tr><th>wins</th><th>cursed wins</th><th>draws</th><th>blessed losses</th><th>losses</th><th>longest rule win</th></tr>";
    const row = table.insertRow();
    for (const k of ["win", "cursed_win", "draw", "blessed_loss", "loss"]) row.insertCell().textContent = side.classes[k].toLocaleString();
    row.insertCell().textContent = side.longest_rule_win === null ? "none" : `${side.longest_rule_win} plies`;
    box.appendChild(table);
    const q = document.createElement("p");
    q.textContent = `wins left when the ending arises with c plies already counted (c = 0 to ${s.rule.limit}):`;
    box.append(q, survivalChart(side.survival));
  }
}

// --- routing ------------------------------------------------------------------

const starts = { 8: "W:WK1,K3:BK32", 10: "W:WK1,K3:BK50", 12: "W:WK1,K3,K5:BK72" };

function route() {
  const params = new URLSearchParams(location.hash.slice(1));
  const variant = params.get("variant") || state.variant || state.variants[0].name;
  chooseVariant(variant);
  if (params.get("material")) {
    $("back-link").href = `#variant=${state.variant}&fen=${encodeURIComponent(state.probe ? state.probe.fen : starts[state.size])}`;
    showMaterial(params.get("material"));
    return;
  }
  if (params.has("count")) {
    state.rules = true;
    $("rules-on").checked = true;
    setCounts(params.get("count"));
  }
  $("position-view").hidden = false;
  $("material-view").hidden = true;
  const fen = params.get("fen") || (state.probe ? state.probe.fen : starts[state.size]);
  if (!state.probe || state.probe.fen !== fen) show(fen);
}

function chooseVariant(name) {
  const v = state.variants.find((x) => x.name === name) || state.variants[0];
  if (state.variant !== v.name) state.probe = null;
  state.variant = v.name;
  state.size = v.board_size;
  $("variant").value = v.name;
}

async function start() {
  try {
    state.variants = (await api("api/variants")).variants;
  } catch (e) {
    $("error").textContent = e.message;
    return;
  }
  for (const v of state.variants) {
    const option = document.createElement("option");
    option.value = v.name;
    option.textContent = `${v.name} (${v.board_size}x${v.board_size})`;
    $("variant").appendChild(option);
  }
  $("variant").addEventListener("change", () => {
    chooseVariant($("variant").value);
    location.hash = `variant=${state.variant}&fen=${encodeURIComponent(starts[state.size])}`;
  });
  $("fen-form").addEventListener("submit", (e) => {
    e.preventDefault();
    show($("fen").value);
  });
  setupEditor();
  window.addEventListener("hashchange", route);
  route();
}

start();
