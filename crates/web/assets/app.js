// gamegraph's page: three views over the JSON API, no framework, no build step.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

function svgElement(name, attributes, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

async function api(path, options) {
  const response = await fetch(path, options);
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

// ---------------------------------------------------------------- views

function showView(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === name);
  for (const view of document.querySelectorAll(".view")) view.classList.toggle("active", view.id === `view-${name}`);
  if (location.hash !== `#${name}`) history.replaceState(null, "", `#${name}`);
}

for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));

// ---------------------------------------------------------------- play

const play = {
  games: [],
  history: [], // positions, in the game's notation
  analyses: [], // the analysis of each position of the history, when known
  cursor: 0,
  request: 0, // the number of the latest analysis request; older answers are dropped
  engineTimer: null,
};

function currentGame() {
  return play.games.find((g) => g.name === $("game").value);
}

function gameQuery() {
  const g = currentGame();
  const params = new URLSearchParams();
  if (g.options.width !== undefined) {
    params.set("width", $("width").value);
    params.set("height", $("height").value);
  }
  if (g.options.rules) params.set("rules", $("rules").value);
  const time = parseFloat($("time").value);
  if (time > 0) params.set("time", String(time));
  if ($("depth").value) params.set("depth", $("depth").value);
  return params;
}

// Scores at least this large are won or lost games at a distance (the engine's DECISIVE): a chess
// table's distance to mate. They are shown as the distance, not the score.
const DECISIVE = 500000;

function isDecisive(v) {
  return Math.abs(v.value) >= DECISIVE;
}

function describe(v) {
  if (v.value === null || v.value === undefined) return "?";
  const approx = v.exact ? "" : "~";
  const known = v.remoteness !== null && v.remoteness !== undefined && v.outcome !== "draw";
  if (isDecisive(v) && known) {
    // Mate in N moves for the winner (ceil(plies / 2)), N moves of resistance for the loser.
    const moves = v.outcome === "win" ? Math.ceil(v.remoteness / 2) : Math.floor(v.remoteness / 2);
    return `${approx}${v.outcome} in ${moves} (${v.remoteness} plies)`;
  }
  const score = v.value > 0 ? `+${v.value}` : `${v.value}`;
  const distance = known ? ` in ${v.remoteness}` : "";
  return `${approx}${v.outcome} ${score}${distance}`;
}

// Orders moves best first for the player making them: value, then the fastest win or slowest loss.
function bestFirst(moves) {
  const rank = (m) => {
    if (m.value === null || m.value === undefined) return -Infinity;
    const r = m.remoteness ?? 0;
    return m.outcome === "win" ? m.value * 1e6 - r : m.outcome === "lose" ? m.value * 1e6 + r : m.value * 1e6;
  };
  return [...moves].sort((a, b) => rank(b) - rank(a));
}

function engineToMove(ply) {
  const mode = $("mode").value;
  if (mode === "human-human") return false;
  const engineFirst = mode === "engine-human";
  return (ply % 2 === 0) === engineFirst;
}

async function newGame() {
  const g = currentGame();
  for (const e of document.querySelectorAll(".opt-size")) e.style.display = g.options.width !== undefined ? "" : "none";
  for (const e of document.querySelectorAll(".opt-rules")) e.style.display = g.options.rules ? "" : "none";
  const params = gameQuery();
  params.set("time", "0.1");
  params.set("depth", "1");
  try {
    // The start depends on the options (the board size), so ask the server.
    const a = await api(`/api/${g.name}/analyze?${params}`);
    setHistory([a.position]);
  } catch (e) {
    $("play-error").textContent = e.message;
  }
}

function setHistory(positions) {
  play.history = positions;
  play.analyses = positions.map(() => null);
  play.cursor = positions.length - 1;
  refresh();
}

async function refresh() {
  clearTimeout(play.engineTimer);
  const position = play.history[play.cursor];
  $("position").value = position;
  $("play-error").textContent = "";
  $("play-status").textContent = "thinking...";
  const id = ++play.request;
  const params = gameQuery();
  params.set("position", position);
  let analysis;
  try {
    analysis = await api(`/api/${currentGame().name}/analyze?${params}`);
  } catch (e) {
    if (id === play.request) {
      $("play-error").textContent = e.message;
      $("play-status").textContent = "";
    }
    return;
  }
  if (id !== play.request) return;
  play.analyses[play.cursor] = analysis;
  render(analysis);
  drawChart();
  if (!analysis.over && engineToMove(play.cursor) && analysis.moves.length > 0) {
    play.engineTimer = setTimeout(() => engineMove(analysis), 300);
  }
}

function engineMove(analysis) {
  const valued = analysis.moves.filter((m) => m.value !== null);
  // The first of the best moves is the one to play (the server puts the game's favourite first).
  let choice = analysis.moves.find((m) => m.move === analysis.best[0]);
  if (!choice && valued.length) choice = valued.reduce((a, b) => (b.value > a.value ? b : a));
  if (!choice) choice = analysis.moves[0];
  playMove(choice);
}

function playMove(move) {
  play.history = play.history.slice(0, play.cursor + 1).concat([move.position]);
  play.analyses = play.analyses.slice(0, play.cursor + 1).concat([null]);
  play.cursor += 1;
  refresh();
}

function render(a) {
  const moveByName = new Map(a.moves.map((m) => [m.move, m]));
  const board = $("board");
  board.className = `board game-${a.game}`;
  board.style.gridTemplateColumns = `repeat(${a.board.cols}, auto)`;
  board.replaceChildren();
  const humanTurn = !engineToMove(play.cursor);
  for (const cell of a.board.cells) {
    const div = document.createElement("div");
    div.className = `cell kind-${cell.kind}`;
    div.textContent = cell.text;
    const move = cell.move !== null ? moveByName.get(cell.move) : undefined;
    if (move) {
      div.classList.add("playable");
      if (move.outcome) div.classList.add(move.outcome);
      div.title = `${move.move}: ${describe(move)}`;
      div.dataset.move = move.move;
      if (humanTurn) div.addEventListener("click", () => playMove(move));
    }
    board.appendChild(div);
  }
  $("board-note").textContent = a.board.note || "";
  const list = $("moves");
  list.replaceChildren();
  // Chess lists its many moves best first, as tablebase sites do; other games keep their order.
  for (const m of a.game === "chess" ? bestFirst(a.moves) : a.moves) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.className = `move ${m.outcome || ""} ${a.best.includes(m.move) ? "best" : ""}`;
    button.dataset.move = m.move;
    button.append(Object.assign(document.createElement("span"), { textContent: m.move }));
    button.append(Object.assign(document.createElement("span"), { className: "value", textContent: describe(m) }));
    button.disabled = !humanTurn;
    button.addEventListener("click", () => playMove(m));
    li.appendChild(button);
    list.appendChild(li);
  }
  let status;
  if (a.over) {
    status = `Game over: ${a.value.value === 0 ? "draw" : `the player to move has ${a.value.value > 0 ? "won" : "lost"} (${a.value.value})`}`;
  } else {
    const who = engineToMove(play.cursor) ? "engine" : "you";
    status = `${a.board.to_move} to move (${who}): ${describe(a)}`;
    if (a.cut_by_time) status += ` (some values cut at the ${a.time_limit_seconds} s limit)`;
  }
  $("play-status").textContent = status;
}

function drawChart() {
  const svg = $("chart");
  svg.replaceChildren();
  const width = +svg.getAttribute("width");
  const height = +svg.getAttribute("height");
  // Values for the first player: the mover's value, negated on the second player's turns.
  const points = play.analyses.slice(0, play.cursor + 1).map((a, ply) => {
    if (!a || a.value === null || a.value === undefined) return null;
    // A won or lost game at a distance counts as one more than any ordinary score.
    const value = isDecisive(a) ? Math.sign(a.value) * 1000 : a.value;
    return ply % 2 === 0 ? value : -value;
  });
  const known = points.filter((p) => p !== null);
  const top = Math.max(1, ...known.map(Math.abs));
  const x = (i) => 30 + (i * (width - 40)) / Math.max(1, points.length - 1);
  const y = (v) => height / 2 - (v / top) * (height / 2 - 15);
  svg.appendChild(svgElement("line", { x1: 30, y1: y(0), x2: width - 10, y2: y(0), stroke: "#d0d7de" }));
  svg.appendChild(svgElement("text", { x: 2, y: y(top) + 4 }, `+${top}`));
  svg.appendChild(svgElement("text", { x: 2, y: y(-top) + 4 }, `-${top}`));
  const path = points.map((p, i) => (p === null ? null : `${x(i)},${y(p)}`)).filter(Boolean);
  if (path.length > 1) {
    svg.appendChild(svgElement("polyline", { points: path.join(" "), fill: "none", stroke: "#0969da", "stroke-width": 2 }));
  }
  points.forEach((p, i) => {
    if (p !== null) svg.appendChild(svgElement("circle", { cx: x(i), cy: y(p), r: 3, fill: "#0969da" }));
  });
}

$("game").addEventListener("change", newGame);
for (const id of ["width", "height", "rules"]) $(id).addEventListener("change", newGame);
$("mode").addEventListener("change", refresh);
$("new-game").addEventListener("click", newGame);
$("undo").addEventListener("click", () => {
  if (play.cursor > 0) {
    play.cursor -= 1;
    refresh();
  }
});
$("redo").addEventListener("click", () => {
  if (play.cursor + 1 < play.history.length) {
    play.cursor += 1;
    refresh();
  }
});
$("load").addEventListener("click", () => setHistory([$("position").value.trim()]));
$("position").addEventListener("keydown", (e) => {
  if (e.key === "Enter") setHistory([$("position").value.trim()]);
});
$("copy").addEventListener("click", async () => {
  $("position").select();
  try {
    await navigator.clipboard.writeText($("position").value);
  } catch (_) {
    document.execCommand("copy");
  }
});

// ---------------------------------------------------------------- trees

const trees = { report: null, step: -1 };

function treeQuery() {
  const params = new URLSearchParams({ tree: $("tree-text").value, algo: $("algo").value, order: $("order").value });
  return `/api/tree?${params}`;
}

async function loadTree() {
  $("tree-error").textContent = "";
  try {
    trees.report = await api(treeQuery());
    return true;
  } catch (e) {
    trees.report = null;
    $("tree-error").textContent = e.message;
    $("tree-svg").replaceChildren();
    $("tree-status").textContent = "";
    return false;
  }
}

async function runTree() {
  if (!(await loadTree())) return;
  trees.step = trees.report.trace.length - 1;
  drawTree();
}

async function stepTree() {
  if (!trees.report || trees.step >= trees.report.trace.length - 1) {
    if (!(await loadTree())) return;
    trees.step = -1;
  }
  trees.step += 1;
  drawTree();
}

async function resetTree() {
  if (!(await loadTree())) return;
  trees.step = -1;
  drawTree();
}

function bound(v, infinity) {
  return v === null ? infinity : String(v);
}

// The state of the search after `step` steps: values shown, windows, pruned and current nodes.
function replay(report, step) {
  const n = report.shape.length;
  const state = { value: new Array(n).fill(null), window: new Array(n).fill(null), pruned: new Array(n).fill(false), visited: new Array(n).fill(false), current: null, leaves: 0 };
  const markPruned = (id) => {
    state.pruned[id] = true;
    for (const c of report.shape[id].children) markPruned(c);
  };
  for (let i = 0; i <= step && i < report.trace.length; i++) {
    const s = report.trace[i];
    state.current = s.id;
    state.visited[s.id] = true;
    if (s.step === "enter" || s.step === "leaf") state.window[s.id] = [s.alpha, s.beta];
    if (s.step === "leaf" || s.step === "exit") state.value[s.id] = s.value;
    if (s.step === "leaf") state.leaves += 1;
    if (s.step === "prune") markPruned(s.id);
  }
  return state;
}

function drawTree() {
  const report = trees.report;
  const svg = $("tree-svg");
  svg.replaceChildren();
  if (!report) return;
  const nodes = report.shape;
  const state = replay(report, trees.step);
  // Leaves side by side, each parent centred over its children, one row per depth.
  const pos = new Array(nodes.length);
  let nextLeaf = 0;
  let maxDepth = 0;
  const place = (id, depth) => {
    maxDepth = Math.max(maxDepth, depth);
    const node = nodes[id];
    if (node.children.length === 0) {
      pos[id] = { x: 40 + nextLeaf++ * 60, y: 50 + depth * 90 };
    } else {
      for (const c of node.children) place(c, depth + 1);
      const xs = node.children.map((c) => pos[c].x);
      pos[id] = { x: (Math.min(...xs) + Math.max(...xs)) / 2, y: 50 + depth * 90 };
    }
  };
  place(0, 0);
  svg.setAttribute("width", Math.max(300, 120 + nextLeaf * 60));
  svg.setAttribute("height", 100 + maxDepth * 90);
  for (const node of nodes) {
    for (const c of node.children) {
      const cls = state.pruned[c] ? "edge pruned" : "edge";
      svg.appendChild(svgElement("line", { class: cls, x1: pos[node.id].x, y1: pos[node.id].y + 14, x2: pos[c].x, y2: pos[c].y - 14 }));
    }
  }
  for (const node of nodes) {
    const { x, y } = pos[node.id];
    const leaf = node.children.length === 0;
    const classes = ["node", leaf ? "leaf" : "inner"];
    if (state.pruned[node.id]) classes.push("pruned");
    if (state.visited[node.id]) classes.push("visited");
    if (state.current === node.id && trees.step < report.trace.length - 1) classes.push("current");
    const g = svgElement("g", { class: classes.join(" "), "data-name": node.name, "data-id": node.id });
    if (leaf) {
      g.appendChild(svgElement("rect", { x: x - 18, y: y - 13, width: 36, height: 26, rx: 4 }));
      g.appendChild(svgElement("text", { x, y: y + 4, "text-anchor": "middle" }, String(node.leaf)));
    } else {
      const points = node.max
        ? `${x},${y - 16} ${x - 18},${y + 13} ${x + 18},${y + 13}`
        : `${x - 18},${y - 13} ${x + 18},${y - 13} ${x},${y + 16}`;
      g.appendChild(svgElement("polygon", { points }));
      const shown = state.value[node.id];
      if (shown !== null) g.appendChild(svgElement("text", { class: "value", x, y: y + (node.max ? 9 : 1), "text-anchor": "middle" }, String(shown)));
    }
    if (node.label) g.appendChild(svgElement("text", { x: x - 24, y: y - 14, "text-anchor": "end" }, node.label));
    const w = state.window[node.id];
    const stepping = trees.step < report.trace.length - 1;
    // Windows on inner nodes; on a leaf only while the step is there, so that labels do not overlap.
    if (w && report.algo === "alphabeta" && (!leaf || (stepping && state.current === node.id))) {
      g.appendChild(svgElement("text", { class: "window", x: x + 22, y: y - 16 }, `α=${bound(w[0], "-∞")} β=${bound(w[1], "+∞")}`));
    }
    g.appendChild(svgElement("title", {}, node.name || "root"));
    svg.appendChild(g);
  }
  const done = trees.step >= report.trace.length - 1;
  const totalSteps = report.trace.length;
  $("tree-status").textContent = done
    ? `${report.algo} (${report.order} order): value ${report.value}, best move ${report.best ?? "-"}, leaves evaluated ${report.leaves} of ${report.total_leaves}, pruned: ${report.pruned.join(" ") || "none"}`
    : `step ${trees.step + 1} of ${totalSteps}: ${describeStep(report.trace[trees.step])}; leaves evaluated so far ${state.leaves}`;
}

function describeStep(s) {
  if (!s) return "start";
  const name = s.node || "root";
  const window = s.alpha !== undefined ? ` with α=${bound(s.alpha, "-∞")}, β=${bound(s.beta, "+∞")}` : "";
  switch (s.step) {
    case "enter": return `enter ${name}${window}`;
    case "leaf": return `leaf ${name} = ${s.value}`;
    case "exit": return `${name} returns ${s.value}`;
    default: return `prune ${name}`;
  }
}

$("tree-run").addEventListener("click", runTree);
$("tree-step").addEventListener("click", stepTree);
$("tree-reset").addEventListener("click", resetTree);
for (const id of ["algo", "order"]) $(id).addEventListener("change", runTree);
$("tree-random").addEventListener("click", async () => {
  const params = new URLSearchParams({
    branching: $("rand-branching").value, depth: $("rand-depth").value, low: $("rand-low").value, high: $("rand-high").value,
  });
  try {
    const r = await api(`/api/tree/random?${params}`);
    $("tree-text").value = r.tree;
    await runTree();
  } catch (e) {
    $("tree-error").textContent = e.message;
  }
});

// ---------------------------------------------------------------- graphs

async function solveGraph() {
  $("graph-error").textContent = "";
  let report;
  try {
    report = await api(`/api/graph?model=${$("model").value}`, { method: "POST", body: $("graph-text").value });
  } catch (e) {
    $("graph-error").textContent = e.message;
    return;
  }
  drawGraph(report);
}

// A force-directed layout: springs along moves, repulsion between all positions.
function layout(names, edges, width, height) {
  const n = names.length;
  const index = new Map(names.map((name, i) => [name, i]));
  const p = names.map((_, i) => ({
    x: width / 2 + (width / 3) * Math.cos((2 * Math.PI * i) / n),
    y: height / 2 + (height / 3) * Math.sin((2 * Math.PI * i) / n),
  }));
  const links = edges.map(([a, b]) => [index.get(a), index.get(b)]).filter(([a, b]) => a !== b);
  const k = Math.min(120, Math.sqrt((width * height) / Math.max(1, n)) * 0.5);
  const iterations = n > 300 ? 120 : 300;
  for (let it = 0; it < iterations; it++) {
    const f = p.map(() => ({ x: 0, y: 0 }));
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const dx = p[i].x - p[j].x, dy = p[i].y - p[j].y;
        const d2 = Math.max(dx * dx + dy * dy, 1);
        const push = (k * k) / d2;
        f[i].x += dx * push; f[i].y += dy * push;
        f[j].x -= dx * push; f[j].y -= dy * push;
      }
    }
    for (const [a, b] of links) {
      const dx = p[a].x - p[b].x, dy = p[a].y - p[b].y;
      const d = Math.max(Math.sqrt(dx * dx + dy * dy), 1);
      const pull = d / k;
      f[a].x -= dx * pull; f[a].y -= dy * pull;
      f[b].x += dx * pull; f[b].y += dy * pull;
    }
    // Gravity keeps separate components near the middle instead of against the borders.
    for (let i = 0; i < n; i++) {
      f[i].x += (width / 2 - p[i].x) * 0.3;
      f[i].y += (height / 2 - p[i].y) * 0.3;
    }
    const step = 10 * (1 - it / iterations) + 0.5;
    for (let i = 0; i < n; i++) {
      const len = Math.max(Math.hypot(f[i].x, f[i].y), 1e-9);
      p[i].x = Math.min(width - 30, Math.max(30, p[i].x + (f[i].x / len) * Math.min(step, len)));
      p[i].y = Math.min(height - 30, Math.max(30, p[i].y + (f[i].y / len) * Math.min(step, len)));
    }
  }
  return { p, index };
}

function drawGraph(report) {
  const svg = $("graph-svg");
  svg.replaceChildren();
  const names = Object.keys(report.positions);
  const width = +svg.getAttribute("width");
  const height = +svg.getAttribute("height");
  const { p, index } = layout(names, report.edges, width, height);
  const defs = svgElement("defs");
  const marker = svgElement("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 22, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
  marker.appendChild(svgElement("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#57606a" }));
  defs.appendChild(marker);
  svg.appendChild(defs);
  for (const [a, b] of report.edges) {
    const [i, j] = [index.get(a), index.get(b)];
    const best = report.positions[a].best.includes(b);
    svg.appendChild(svgElement("line", { class: best ? "edge best" : "edge", x1: p[i].x, y1: p[i].y, x2: p[j].x, y2: p[j].y, "marker-end": "url(#arrow)" }));
  }
  const table = $("graph-table");
  table.replaceChildren();
  const header = table.insertRow();
  for (const h of ["position", "outcome", "value", "remoteness", "best moves to"]) header.appendChild(Object.assign(document.createElement("th"), { textContent: h }));
  names.forEach((name, i) => {
    const r = report.positions[name];
    const g = svgElement("g", { class: `node ${r.outcome}`, "data-name": name });
    g.appendChild(svgElement("circle", { cx: p[i].x, cy: p[i].y, r: 14 }));
    g.appendChild(svgElement("text", { x: p[i].x, y: p[i].y + 4, "text-anchor": "middle" }, name));
    const detail = [r.value !== null ? `${r.value}` : null, r.remoteness !== null ? `r${r.remoteness}` : null].filter(Boolean).join(" ");
    if (detail) g.appendChild(svgElement("text", { x: p[i].x, y: p[i].y + 28, "text-anchor": "middle" }, detail));
    g.appendChild(svgElement("title", {}, `${name}: ${r.outcome}${r.value !== null ? ` ${r.value}` : ""}`));
    svg.appendChild(g);
    const row = table.insertRow();
    row.dataset.name = name;
    row.className = r.outcome;
    for (const text of [name, r.outcome, r.value ?? "", r.remoteness ?? "", r.best.join(" ")]) row.insertCell().textContent = String(text);
  });
  const count = (o) => names.filter((n) => report.positions[n].outcome === o).length;
  $("graph-status").textContent = `${report.model} model: ${names.length} positions, ${count("win")} win, ${count("lose")} lose, ${count("draw")} draw`;
}

$("graph-solve").addEventListener("click", solveGraph);
$("model").addEventListener("change", solveGraph);

// ---------------------------------------------------------------- start

(async function start() {
  showView(["play", "trees", "graphs"].includes(location.hash.slice(1)) ? location.hash.slice(1) : "play");
  try {
    play.games = (await api("/api/games")).games;
  } catch (e) {
    $("play-error").textContent = e.message;
    return;
  }
  for (const g of play.games) $("game").appendChild(Object.assign(document.createElement("option"), { value: g.name, textContent: g.name }));
  $("game").value = "tictactoe";
  await newGame();
  runTree();
  solveGraph();
})();
