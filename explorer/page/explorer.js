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
  probe: null,           // the /api/probe answer of the position shown; null when there is none
  line: [],              // best line: [{fen, move}] from the position shown first
  lineAt: 0,
  lastMove: null,        // the move that led to the position shown, its text ("32-28"), or null
  flipped: false,        // the board seen from Black's side
  tool: null,            // the editor's piece, or null
  rules: false,          // answer under the move-count draw rules too
  counts: { K: "", E: "", T: "" },  // the counts of the game, "" when not given (the count starts now)
  asked: 0,              // the number of the last probe asked: older answers are dropped
  routed: null,          // the address last shown, so that a history step is routed once
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

// The squares a move's text starts and ends on: "32-28", "28x19", "28x10x1".
function moveEnds(text) {
  const squares = text.split(/[-x]/).map(Number);
  return { from: squares[0], to: squares[squares.length - 1] };
}

// The moves of one player: a win in 15 plies is the winner's 8th move.
function movesOf(plies) {
  return Math.ceil(plies / 2);
}

// --- drawing ---------------------------------------------------------------

function element(name, attributes, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// An SVG board of size n with `position`; onSquare(s) makes squares
// clickable. marks: {last, best} move texts to mark (the last move's squares
// shaded, the best move as an arrow); flipped: seen from Black's side.
function drawBoard(position, n, { numbers = true, onSquare = null, marks = {}, flipped = false } = {}) {
  const svg = element("svg", { viewBox: `0 0 ${n} ${n}`, role: "img" });
  svg.setAttribute("aria-label", toFen(position));
  const at = (s) => {
    const { row, col } = squareAt(s, n);
    return flipped ? { row: n - 1 - row, col: n - 1 - col } : { row, col };
  };
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++) element("rect", { x: c, y: r, width: 1, height: 1, class: (r + c) % 2 ? "dark" : "light" }, svg);
  if (marks.last) {
    const { from, to } = moveEnds(marks.last);
    for (const s of [from, to]) {
      const { row, col } = at(s);
      element("rect", { x: col, y: row, width: 1, height: 1, class: "last-move", "data-last": s }, svg);
    }
  }
  for (let s = 1; s <= (n * n) / 2; s++) {
    const { row, col } = at(s);
    const g = element("g", { "data-square": s }, svg);
    const piece = position.pieces.get(s);
    if (piece) {
      element("circle", { cx: col + 0.5, cy: row + 0.5, r: 0.38, class: piece[0] === "w" ? "white-piece" : "black-piece" }, g);
      if (piece[1] === "k") element("circle", { cx: col + 0.5, cy: row + 0.5, r: 0.18, class: "crown" }, g);
    }
    if (numbers) {  // over the piece, in the square's corner, outlined to read on any colour
      const t = element("text", { x: col + 0.04, y: row + 0.27, class: "number" }, g);
      t.textContent = s;
    }
    if (onSquare) {
      const hit = element("rect", { x: col, y: row, width: 1, height: 1, fill: "transparent", "data-hit": s }, g);
      hit.style.cursor = "pointer";
      hit.addEventListener("click", () => onSquare(s));
    }
  }
  if (marks.best) {
    const { from, to } = moveEnds(marks.best);
    const a = at(from), b = at(to);
    const defs = element("defs", {}, svg);
    const head = element("marker", { id: "arrow-head", viewBox: "0 0 10 10", refX: 5, refY: 5, markerWidth: 3,
      markerHeight: 3, orient: "auto-start-reverse" }, defs);
    element("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "best-arrow-head" }, head);
    element("line", { x1: a.col + 0.5, y1: a.row + 0.5, x2: b.col + 0.5, y2: b.row + 0.5, class: "best-arrow",
      "marker-end": "url(#arrow-head)", "data-best": marks.best }, svg);
  }
  return svg;
}

function valueText(v, plies) {
  if (v === "draw") return "draw";
  return `${v} in ${plies} ${plies === 1 ? "ply" : "plies"}`;
}

// "win in 15 plies (8 moves)": the plies, and the moves of the side that
// wins or loses as a game score counts them.
function valueWithMoves(v, plies) {
  if (v === "draw" || plies === 0) return valueText(v, plies);
  const moves = movesOf(plies);
  return `${valueText(v, plies)} (${moves} ${moves === 1 ? "move" : "moves"})`;
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

// The address of a position: variant, FEN and, under the rules, the counts.
function positionHash(fen) {
  const rules = state.rules ? `&count=${encodeURIComponent(countsText())}` : "";
  return `#variant=${state.variant}&fen=${encodeURIComponent(fen)}${rules}`;
}

// Shows `fen`: asks the server, then draws the position, its value, its moves
// and the best line. A move played, a FEN entered or an edit is a step in the
// browser's history (push), which Back undoes; a step along the best line
// replaces the address. Whatever the answer, nothing of the position shown
// before stays on the page: on an error the board shows the position asked
// (or none, if its FEN cannot be read) and the error alone.
async function show(fen, { keepLine = false, push = false, lastMove = null } = {}) {
  const asked = ++state.asked;
  let answer, failure;
  try {
    answer = await api(probePath(fen));
  } catch (e) {
    failure = e;
  }
  if (asked !== state.asked) return;  // another position was asked meanwhile
  $("error").textContent = "";
  state.lastMove = lastMove;
  if (failure) {
    state.probe = null;
    state.position = parseFenSafely(fen);
    state.line = [];
    state.lineAt = 0;
    $("fen").value = fen;
    $("error").textContent = failure.message;
    render();
    return;
  }
  state.probe = answer;
  state.position = parseFen(answer.fen);
  $("fen").value = answer.fen;
  const hash = positionHash(answer.fen);
  if (push && hash !== location.hash) history.pushState({ lastMove }, "", hash);
  else history.replaceState({ lastMove }, "", hash);
  state.routed = location.hash;
  if (!keepLine) {
    state.line = [{ fen: answer.fen, move: lastMove }];  // the move that led to it, if one was played
    state.lineAt = 0;
    extendLine(answer);
  }
  render();
}

// A FEN as a position, or none (an empty board) when it cannot be read.
function parseFenSafely(fen) {
  if (!/^\s*[WB]:[WB][K0-9,\-]*:[WB][K0-9,\-]*\.?\s*$/i.test(fen)) return { side: "W", pieces: new Map() };
  const p = parseFen(fen);
  const squares = (state.size * state.size) / 2;
  for (const s of p.pieces.keys()) if (!(s >= 1 && s <= squares)) return { side: p.side, pieces: new Map() };
  return p;
}

// The best line from the first position: the best move, again and again,
// until the game ends (a draw: one move that keeps it).
async function extendLine(first) {
  const line = state.line;
  let answer = first;
  for (let guard = 0; guard < 1000 && answer.moves.length > 0; guard++) {
    const best = answer.moves[0];
    line.push({ fen: best.fen, move: best.move });
    renderLine();  // the line grows on the page as its moves arrive
    if (answer.value === "draw") break;
    answer = await api(`api/probe?variant=${encodeURIComponent(state.variant)}&fen=${encodeURIComponent(best.fen)}`);
    if (state.line !== line) return;  // another position was chosen meanwhile
  }
}

function render() {
  const p = state.position;
  const best = state.probe && state.probe.moves.length ? state.probe.moves[0].move : null;
  $("board").replaceChildren(drawBoard(p, state.size, { onSquare: state.tool ? edit : null, flipped: state.flipped,
    marks: { last: state.lastMove, best } }));
  const side = p.side === "W" ? "White" : "Black";
  const list = $("moves");
  list.replaceChildren();
  $("rules-value").replaceChildren();
  $("value").textContent = "";
  $("value").className = "";
  $("material-link").hidden = !state.probe;
  if (state.probe) {
    $("value").textContent = `${side} to move: ${valueWithMoves(state.probe.value, state.probe.plies)}`;
    $("value").className = state.probe.value;
    const r = state.probe.rules;
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
        show(m.fen, { push: true, lastMove: m.move });
      });
      list.appendChild(li);
    }
    if (!state.probe.moves.length) list.textContent = "no legal move";
    const material = materialOf(p);
    $("material-link").textContent = `${material}: statistics, distances, longest wins`;
    $("material-link").href = `#variant=${state.variant}&material=${material}`;
  }
  renderLine();
}

// The player who moves first in a game, after whom the moves are numbered
// (Black in American checkers, White elsewhere; /api/variants says which).
function firstPlayer() {
  return state.variants.find((v) => v.name === state.variant).first_to_move === "black" ? "B" : "W";
}

// The best line with move numbers ("1. 32-28 19-23 2. ..."; "1... 19-23"
// when it starts with the second player); the step shown is marked.
function renderLine() {
  const box = $("line");
  box.replaceChildren();
  const start = state.line.length ? parseFen(state.line[0].fen).side : "W";
  state.line.forEach((step, i) => {
    if (i === 0) return;
    const mover = (i - 1) % 2 === 0 ? start : start === "W" ? "B" : "W";
    const opening = mover === firstPlayer();
    const number = Math.floor((i - 1 + (start === firstPlayer() ? 0 : 1)) / 2) + 1;
    if (opening || i === 1) {
      const label = document.createElement("span");
      label.className = "move-number";
      label.textContent = opening ? `${number}.` : `${number}...`;
      box.appendChild(label);
    }
    const span = document.createElement("span");
    span.textContent = step.move;
    span.className = i === state.lineAt ? "line-move current" : "line-move";
    span.addEventListener("click", () => stepTo(i));
    box.appendChild(span);
  });
  $("line-step").textContent = `${state.lineAt} / ${Math.max(0, state.line.length - 1)}`;
}

function stepTo(i) {
  if (i < 0 || i >= state.line.length) return;
  state.lineAt = i;
  show(state.line[i].fen, { keepLine: true, lastMove: state.line[i].move });
}

// --- the editor --------------------------------------------------------------

function edit(square) {
  const p = state.position;
  if (state.tool === "none") p.pieces.delete(square);
  else p.pieces.set(square, state.tool);
  show(toFen(p), { push: true });
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
    show(toFen(state.position), { push: true });
  });
  $("clear").addEventListener("click", () => {
    state.asked++;  // an answer still on its way is for another position
    state.position = { side: state.position.side, pieces: new Map() };
    state.probe = null;
    state.line = [];
    state.lastMove = null;
    $("error").textContent = "";
    $("fen").value = toFen(state.position);
    render();
  });
  $("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
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
  // The arrow keys step along the best line (Home, End: its ends), except
  // while a field is being typed in.
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea") || !$("material-view").hidden) return;
    const to = { ArrowLeft: state.lineAt - 1, ArrowRight: state.lineAt + 1, Home: 0, End: state.line.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    stepTo(to);
  });
}

// --- the material view ------------------------------------------------------

// 1,234,567 as "1.2M", 35,000 as "35K": axis labels.
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

// Bars of wins (up) and losses (down) by distance in plies, on a logarithmic
// scale of positions (a bar of 1 position still shows beside 10^9), with the
// powers of ten marked and every bar's count in its tooltip.
function histogramChart(histogram) {
  const all = [...histogram.win, ...histogram.loss];
  const maxPlies = Math.max(1, ...all.map(([p]) => p));
  const maxCount = Math.max(1, ...all.map(([, c]) => c));
  const decades = Math.max(1, Math.ceil(Math.log10(maxCount + 1)));
  const w = 760, h = 260, left = 56, top = 8, mid = top + (h - top - 30) / 2, half = mid - top;
  const bar = Math.max(1, (w - left - 10) / (maxPlies + 1));
  const svg = element("svg", { viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img" });
  svg.setAttribute("aria-label", "wins and losses by distance in plies, positions on a logarithmic scale");
  const scale = (c) => (Math.log10(c + 1) / decades) * half;
  const label = (x, y, text, cls = "") => { const t = element("text", { x, y, class: cls }, svg); t.textContent = text; return t; };
  for (let d = 1; d <= decades; d++) {  // gridlines at 10, 100, ... positions, both ways
    const y = scale(10 ** d - 1);
    for (const yy of [mid - y, mid + y]) {
      element("line", { x1: left, y1: yy, x2: w - 10, y2: yy, class: "grid" }, svg);
      label(left - 4, yy + 4, compact.format(10 ** d), "axis").setAttribute("text-anchor", "end");
    }
  }
  for (const [p, c] of histogram.win)
    element("rect", { x: left + p * bar, y: mid - scale(c), width: bar * 0.9, height: scale(c), class: "win-bar" }, svg)
      .appendChild(title(`win in ${p} plies: ${c.toLocaleString()} positions`));
  for (const [p, c] of histogram.loss)
    element("rect", { x: left + p * bar, y: mid, width: bar * 0.9, height: scale(c), class: "loss-bar" }, svg)
      .appendChild(title(`loss in ${p} plies: ${c.toLocaleString()} positions`));
  element("line", { x1: left, y1: mid, x2: w - 10, y2: mid, stroke: "#333" }, svg);
  label(w - 12, top + 10, "wins ↑", "axis").setAttribute("text-anchor", "end");
  label(w - 12, mid + half - 2, "losses ↓", "axis").setAttribute("text-anchor", "end");
  const step = Math.max(1, Math.ceil(maxPlies / 15));
  for (let p = 0; p <= maxPlies; p += step) label(left + p * bar + bar * 0.45, h - 16, p, "axis").setAttribute("text-anchor", "middle");
  label(left + (w - left) / 2, h - 2, "distance to the end in plies (a move of one player is 1 ply)", "axis")
    .setAttribute("text-anchor", "middle");
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
      .appendChild(title(`count at ${c}: ${n.toLocaleString()} wins left`));
  });
  const label = (x, y, text) => { const t = element("text", { x, y }, svg); t.textContent = text; };
  label(0, 14, compact.format(top));
  label(0, h, "0");
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

// The first position of each variant: the longest win of three kings against
// one (two against one in American checkers), from tables of up to 4 pieces.
const starts = {
  american: "W:WK1,K2:BK14",       // 33 plies
  brazilian: "W:WK4,K7,K11:BK21",  // 25 plies
  russian: "W:WK4,K7,K11:BK21",    // 25 plies
  international: "W:WK1,K7,K18:BK35",  // 15 plies
  canadian: "W:WK1,K8,K21:BK54",   // 15 plies
};

function startFen() {
  return starts[state.variant];
}

// Shows what the address says: a position (with the counts under the rules)
// or a material. Called on load and on every step of the browser's history
// (Back, Forward, a link), once for each address.
function route() {
  if (state.routed === location.hash) return;
  state.routed = location.hash;
  const params = new URLSearchParams(location.hash.slice(1));
  const variant = params.get("variant") || state.variant || state.variants[0].name;
  chooseVariant(variant);
  if (params.get("material")) {
    $("back-link").href = positionHash(state.probe ? state.probe.fen : startFen());
    showMaterial(params.get("material"));
    return;
  }
  state.rules = params.has("count");
  $("rules-on").checked = state.rules;
  setCounts(params.get("count"));
  $("position-view").hidden = false;
  $("material-view").hidden = true;
  const fen = params.get("fen") || startFen();
  const lastMove = history.state && history.state.lastMove ? history.state.lastMove : null;
  show(fen, { lastMove });
}

// The variant chosen: its board, the counts its draw rules keep (fields and
// legend) and the legend's words for it.
function chooseVariant(name) {
  const v = state.variants.find((x) => x.name === name) || state.variants[0];
  if (state.variant !== v.name) {
    state.probe = null;
    state.line = [];
  }
  state.variant = v.name;
  state.size = v.board_size;
  $("variant").value = v.name;
  for (const [id, key] of [["count-k", "K"], ["count-e", "E"], ["count-t", "T"]]) {
    const count = v.counts.find((c) => c.name === key);
    $(id).parentElement.hidden = !count;
    $(id).parentElement.title = count ? count.meaning : "";
  }
  renderLegend(v);
}

// What the values mean, for the variant shown: plies and moves, the classes
// under the draw rules, the rule distance, and the counts the variant keeps.
function renderLegend(v) {
  const list = $("legend-counts");
  list.replaceChildren();
  for (const c of v.counts) {
    const li = document.createElement("li");
    const rules = c.rules.map((r) => `${r.limit} plies: ${r.article}`).join("; ");
    li.textContent = `${c.name}: ${c.meaning} (${rules})`;
    list.appendChild(li);
  }
  $("legend-variant").textContent = v.name;
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
    location.hash = `variant=${state.variant}&fen=${encodeURIComponent(startFen())}`;
  });
  $("fen-form").addEventListener("submit", (e) => {
    e.preventDefault();
    show($("fen").value.trim(), { push: true });
  });
  setupEditor();
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  route();
}

start();
