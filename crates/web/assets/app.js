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

function currentView() {
  const active = document.querySelector(".view.active");
  return active ? active.id.replace("view-", "") : "play";
}

function showView(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === name);
  for (const view of document.querySelectorAll(".view")) view.classList.toggle("active", view.id === `view-${name}`);
  if (play.games.length) updateAddress();
  else if (location.hash !== `#${name}`) history.replaceState(null, "", `${location.search}#${name}`);
}

for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));

// ---------------------------------------------------------------- play

const play = {
  games: [],
  history: [], // positions, in the game's notation
  analyses: [], // the analysis of each position of the history, when known
  cursor: 0,
  moves: [], // the move that led to each position of the history (null for the first)
  written: [], // the same moves as players write them (chess: SAN)
  request: 0, // the number of the latest analysis request; older answers are dropped
  abort: null, // stops waiting for the latest analysis
  loading: null, // the latest refresh: true once shown, false if refused
  engineTimer: null,
  flipped: false, // chess: Black at the bottom
  selected: null, // chess: the square whose piece is picked up
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

// The units of a search's estimate, by game: what its evaluation counts (chess in centipawns).
const ESTIMATE_UNITS = {
  chess: { scale: 100, unit: "pawns", digits: 2 },
  othello: { scale: 1, unit: "discs", digits: 0 },
  oware: { scale: 1, unit: "stones", digits: 0 },
  connect4: { scale: 1, unit: "", digits: 0 },
};

function isEstimate(v) {
  return v.exact === false && v.value !== null && v.value !== undefined;
}

// The class that colours a value: win, draw or lose for exact values only; an estimate of a
// limited search is neutral, never coloured as a result it has not proven.
function valueClass(v) {
  if (v.value === null || v.value === undefined) return "unknown";
  return isEstimate(v) ? "estimate" : v.outcome || "";
}

function describeEstimate(v, game) {
  const depth = v.depth ? t("estimate.depth", { depth: v.depth }) : "";
  if (isDecisive(v)) {
    const plies = DECISIVE * 2 - Math.abs(v.value);
    const side = t(v.value > 0 ? "estimate.mates" : "estimate.mated");
    return `\u2248 ${side}${plies > 0 && plies < 1000 ? t("estimate.in", { moves: Math.ceil(plies / 2) }) : ""}${depth}`;
  }
  const u = ESTIMATE_UNITS[game] || { scale: 1, unit: "", digits: 0 };
  const x = v.value / u.scale;
  // In the page's language: 0.30 in English, 0,30 in French.
  const number = Math.abs(x).toLocaleString(LANG, { minimumFractionDigits: u.digits, maximumFractionDigits: u.digits, useGrouping: false });
  const shown = `${x > 0 ? "+" : x < 0 ? "\u2212" : ""}${number}`;
  return `\u2248 ${shown}${u.unit ? ` ${t(`unit.${u.unit}`)}` : ""}${depth}`;
}

// What an exact score counts, by game, where it is more than a win or a loss.
const EXACT_UNITS = { oware: "stones", othello: "discs" };

function plies(n) {
  return t(n === 1 ? "plies.one" : "plies.many", { n });
}

// A side's name as the server gives it ("White", "X"), in the page's language.
function sideName(name) {
  return localName("name", name);
}

function capitalized(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// An exact value in words: the result, its margin in the game's units, the plies to the end.
function describe(v, game) {
  if (v.value === null || v.value === undefined) return t("value.unknown");
  if (isEstimate(v)) return describeEstimate(v, game);
  const known = v.remoteness !== null && v.remoteness !== undefined;
  // A draw with a distance ends in that many plies; without one, play goes on for ever.
  if (v.outcome === "draw") return known ? t("value.draw-in", { plies: plies(v.remoteness) }) : t("value.draw");
  const outcome = t(`outcome.${v.outcome}`);
  if (isDecisive(v) && known) {
    // Mate in N moves for the winner (ceil(plies / 2)), N moves of resistance for the loser.
    const moves = v.outcome === "win" ? Math.ceil(v.remoteness / 2) : Math.floor(v.remoteness / 2);
    return t("value.mate", { outcome, moves, plies: plies(v.remoteness) });
  }
  const unit = EXACT_UNITS[game];
  const margin = unit ? t("value.margin", { amount: Math.abs(v.value), unit: t(`unit.${unit}`) }) : "";
  const distance = known ? t("value.distance", { plies: plies(v.remoteness) }) : "";
  // Connect 4's standard score (docs/scores.md): the sooner the win, the higher.
  const score = !unit && Math.abs(v.value) > 1 ? t("value.score", { score: `${v.value > 0 ? "+" : ""}${v.value}` }) : "";
  return t("value.exact", { outcome, margin, distance, score });
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

function showOptions() {
  const g = currentGame();
  for (const e of document.querySelectorAll(".opt-size")) e.style.display = g.options.width !== undefined ? "" : "none";
  for (const e of document.querySelectorAll(".opt-rules")) e.style.display = g.options.rules ? "" : "none";
}

async function newGame() {
  const g = currentGame();
  showOptions();
  play.flipped = false;
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
  play.autoFlip = true;
  play.history = positions;
  play.analyses = positions.map(() => null);
  play.moves = positions.map(() => null);
  play.written = positions.map(() => null);
  play.cursor = positions.length - 1;
  play.loading = refresh();
}

// While a position is analysed, nothing of the last one can be played: the board and the
// moves are marked busy (not clickable), a spinner turns and Cancel stops the wait.
function setBusy(busy) {
  for (const id of ["board", "moves"]) $(id).classList.toggle("busy", busy);
  for (const b of document.querySelectorAll("#moves button")) if (busy) b.disabled = true;
  $("cancel").hidden = !busy;
  $("play-status").classList.toggle("thinking", busy);
}

// Analyses the position at the cursor and shows it; false when the server refused it (then the
// last position shown stays, with the error under it).
async function refresh() {
  clearTimeout(play.engineTimer);
  if (play.abort) play.abort.abort();
  const position = play.history[play.cursor];
  $("position").value = position;
  $("play-error").textContent = "";
  $("play-status").textContent = t("status.thinking");
  setBusy(true);
  const id = ++play.request;
  const params = gameQuery();
  params.set("position", position);
  play.abort = new AbortController();
  let analysis;
  try {
    analysis = await api(`/api/${currentGame().name}/analyze?${params}`, { signal: play.abort.signal });
  } catch (e) {
    if (id === play.request) {
      setBusy(false);
      $("play-error").textContent = e.name === "AbortError" ? t("status.cancelled") : e.message;
      $("play-status").textContent = "";
    }
    return false;
  }
  if (id !== play.request) return false;
  setBusy(false);
  play.analyses[play.cursor] = analysis;
  render(analysis);
  drawChart();
  if (currentView() === "play") updateLink();
  if (!analysis.over && engineToMove(play.cursor) && analysis.moves.length > 0) {
    play.engineTimer = setTimeout(() => engineMove(analysis), 300);
  }
  return true;
}

// Loads a position typed or linked; a position the server refuses leaves the last good one in
// place (and playable), with the error saying so.
async function loadPosition(text) {
  const saved = { history: play.history, analyses: play.analyses, cursor: play.cursor, moves: play.moves, written: play.written };
  setHistory([text]);
  if (await play.loading) return;
  const error = $("play-error").textContent;
  Object.assign(play, saved);
  const shown = play.analyses[play.cursor];
  if (shown) {
    $("position").value = play.history[play.cursor];
    render(shown);
    drawChart();
  }
  $("play-error").textContent = t("status.kept", { error });
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
  play.moves = play.moves.slice(0, play.cursor + 1).concat([move.move]);
  play.written = play.written.slice(0, play.cursor + 1).concat([move.display ?? move.move]);
  play.cursor += 1;
  refresh();
}

// ---------------------------------------------------------------- the chess board

const FILES = "abcdefgh";
const PROMOTION_PIECES = { q: ["\u2655", "\u265B"], r: ["\u2656", "\u265C"], b: ["\u2657", "\u265D"], n: ["\u2658", "\u265E"] };

// The square of cell `i` of a chess board view (rank 8 first, file a first).
function squareOf(i) {
  return `${FILES[i % 8]}${8 - Math.floor(i / 8)}`;
}

// The moves of `a` from `from` (UCI notation: from, to, promotion piece).
function movesFrom(a, from) {
  return a.moves.filter((m) => m.move.slice(0, 2) === from);
}

function clearSelection() {
  play.selected = null;
  for (const c of document.querySelectorAll("#board .cell")) c.classList.remove("selected", "target", "win", "lose", "draw", "estimate", "unknown");
  $("promotion").hidden = true;
}

// Picks up the piece on `from`: its moves' squares are marked, coloured by their value.
function selectSquare(a, from) {
  clearSelection();
  play.selected = from;
  document.querySelector(`#board .cell[data-square='${from}']`).classList.add("selected");
  for (const m of movesFrom(a, from)) {
    const target = document.querySelector(`#board .cell[data-square='${m.move.slice(2, 4)}']`);
    target.classList.add("target", valueClass(m));
  }
}

// Plays the move from the selected square to `to`, asking which piece a pawn becomes.
function playTo(a, to) {
  const candidates = a.moves.filter((m) => m.move.slice(0, 4) === `${play.selected}${to}`);
  if (candidates.length === 1) {
    clearSelection();
    playMove(candidates[0]);
  } else if (candidates.length > 1) {
    const picker = $("promotion");
    picker.replaceChildren(Object.assign(document.createElement("span"), { textContent: t("promote.to") }));
    const white = a.board.to_move === "White";
    const order = (m) => "qrbn".indexOf(m.move.slice(4));
    for (const m of [...candidates].sort((x, y) => order(x) - order(y))) {
      const piece = m.move.slice(4);
      const button = document.createElement("button");
      button.className = `promote ${valueClass(m)}`;
      button.dataset.move = m.move;
      button.textContent = PROMOTION_PIECES[piece][white ? 0 : 1];
      button.title = `${m.display ?? m.move}: ${describe(m, a.game)}`;
      button.setAttribute("aria-label", `${t(`piece.${piece}`)}: ${describe(m, a.game)}`);
      button.addEventListener("click", () => {
        clearSelection();
        playMove(m);
      });
      picker.appendChild(button);
    }
    picker.hidden = false;
  }
}

function chessClick(a, square) {
  const targets = play.selected ? movesFrom(a, play.selected).map((m) => m.move.slice(2, 4)) : [];
  if (targets.includes(square)) playTo(a, square);
  else if (square !== play.selected && movesFrom(a, square).length) selectSquare(a, square);
  else clearSelection();
}

// Click or drag a piece, then its square of arrival; the last move is marked, the board turned
// for Black, the files and ranks written along the edges.
function chessCell(a, div, i, humanTurn, last) {
  const square = squareOf(i);
  div.dataset.square = square;
  div.setAttribute("aria-label", `${square}${div.textContent ? ` ${div.textContent}` : ""}`);
  const shown = play.flipped ? 63 - i : i;
  if (shown % 8 === 0) div.appendChild(Object.assign(document.createElement("span"), { className: "rank-label", textContent: square[1] }));
  if (shown >= 56) div.appendChild(Object.assign(document.createElement("span"), { className: "file-label", textContent: square[0] }));
  if (last && (last.slice(0, 2) === square || last.slice(2, 4) === square)) div.classList.add("last");
  if (!humanTurn) return;
  div.tabIndex = 0;
  // From the keyboard too: Enter or Space picks the piece up, then puts it down on its square.
  onActivate(div, () => chessClick(a, square));
  if (movesFrom(a, square).length) {
    div.classList.add("movable");
    div.draggable = true;
    div.addEventListener("dragstart", (e) => {
      selectSquare(a, square);
      e.dataTransfer.setData("text/plain", square);
    });
  }
  div.addEventListener("dragover", (e) => {
    if (div.classList.contains("target")) e.preventDefault();
  });
  div.addEventListener("drop", (e) => {
    e.preventDefault();
    if (div.classList.contains("target")) playTo(a, square);
  });
}

// Runs `action` when `element` is clicked, or on Enter or Space while it has the focus.
function onActivate(element, action) {
  element.addEventListener("click", action);
  element.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      action();
    }
  });
}

// A cell that plays its move when clicked, or with Enter or Space from the keyboard.
function playableCell(div, move, game, humanTurn) {
  div.classList.add("playable", valueClass(move));
  div.title = `${move.move}: ${describe(move, game)}`;
  div.setAttribute("aria-label", t("cell.move", { move: move.move, value: describe(move, game) }));
  div.dataset.move = move.move;
  if (!humanTurn) return;
  div.tabIndex = 0;
  div.setAttribute("role", "button");
  onActivate(div, () => playMove(move));
}

// Connect 4: every empty cell of a column plays there, but only the cell the stone drops to is
// coloured by its value and reached by the keyboard, so the board keeps its look.
function onlyDropCells(board) {
  const seen = new Set();
  for (const div of [...board.children].reverse()) {
    const move = div.dataset.move;
    if (!move) continue;
    if (seen.has(move)) {
      div.classList.remove("win", "lose", "draw", "estimate", "unknown");
      div.classList.add("column");
      div.tabIndex = -1;
      div.removeAttribute("role");
    } else {
      seen.add(move);
    }
  }
}

// The moves played from the position loaded, numbered by move (two plies), the current one in bold.
function showRecord() {
  const record = $("record");
  record.replaceChildren();
  const played = play.written.slice(1);
  if (played.length === 0) {
    record.textContent = t("record.none");
    return;
  }
  played.forEach((move, i) => {
    if (i % 2 === 0) record.append(`${i / 2 + 1}. `);
    const span = Object.assign(document.createElement("span"), { textContent: move });
    if (i + 1 === play.cursor) span.className = "current-move";
    if (i + 1 > play.cursor) span.className = "undone-move";
    record.append(span, " ");
  });
}

function render(a) {
  const moveByName = new Map(a.moves.map((m) => [m.move, m]));
  const board = $("board");
  const chess = a.game === "chess";
  if (chess && play.autoFlip) {
    // The side the human plays at the bottom.
    play.flipped = (a.board.to_move === "Black") !== ($("mode").value === "engine-human");
  }
  play.autoFlip = false;
  play.selected = null;
  $("promotion").hidden = true;
  $("flip").hidden = !chess;
  board.className = `board game-${a.game}${chess && play.flipped ? " flipped" : ""}`;
  board.style.gridTemplateColumns = `repeat(${a.board.cols}, auto)`;
  // The cells shrink to fit a narrow screen (style.css, --fit).
  board.style.setProperty("--cols", a.board.cols);
  board.replaceChildren();
  const humanTurn = !engineToMove(play.cursor) && !a.over;
  const last = play.moves[play.cursor];
  const order = a.board.cells.map((cell, i) => [cell, i]);
  if (chess && play.flipped) order.reverse();
  for (const [cell, i] of order) {
    const div = document.createElement("div");
    div.className = `cell kind-${cell.kind}${chess && (Math.floor(i / 8) + i) % 2 === 1 ? " dark" : ""}`;
    div.textContent = cell.text;
    const move = cell.move !== null ? moveByName.get(cell.move) : undefined;
    if (chess) chessCell(a, div, i, humanTurn, last);
    else if (move) playableCell(div, move, a.game, humanTurn);
    // Every cell says what it holds to a screen reader, played or not.
    if (!div.hasAttribute("aria-label")) div.setAttribute("aria-label", t(`cell.${cell.kind}`, { text: cell.text }).trim());
    board.appendChild(div);
  }
  if (a.game === "connect4") onlyDropCells(board);
  $("board-note").textContent = a.board.note || "";
  showRecord();
  const list = $("moves");
  list.replaceChildren();
  // Chess lists its many moves best first, as tablebase sites do; other games keep their order.
  for (const m of a.game === "chess" ? bestFirst(a.moves) : a.moves) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.className = `move ${valueClass(m)} ${a.best.includes(m.move) ? "best" : ""}`;
    button.dataset.move = m.move;
    // As players write it (chess: SAN), the notation the page sends kept in data-move.
    button.append(Object.assign(document.createElement("span"), { className: "notation", textContent: m.display ?? m.move }));
    button.append(Object.assign(document.createElement("span"), { className: "value", textContent: describe(m, a.game) }));
    button.disabled = !humanTurn;
    button.addEventListener("click", () => playMove(m));
    li.appendChild(button);
    list.appendChild(li);
  }
  let status;
  if (a.over) {
    status = a.value === 0 ? t("status.over-draw") : t(a.value > 0 ? "status.over-won" : "status.over-lost", { value: a.value });
  } else {
    const who = t(engineToMove(play.cursor) ? "status.engine" : "status.you");
    status = capitalized(t("status.to-move", { side: sideName(a.board.to_move), who, value: describe(a, a.game) }));
    if (a.cut_by_time) status += t("status.cut", { seconds: a.time_limit_seconds });
  }
  $("play-status").textContent = status;
}

// The value history, drawn as GamesmanUni draws it: one point per position of the game, by move
// number, from the side chosen above the chart (White, Black, X, O... as the game names its
// players). A proven win of that side sits above the middle line, a loss below, a draw on it;
// the nearer the end (the fewer plies to it), the nearer the edge, so that the distance to mate
// shows. An estimate of a limited search proves nothing: it stays inside the middle band,
// hollow, scaled to the largest estimate of the game.
function drawChart() {
  const svg = $("chart");
  svg.replaceChildren();
  const [width, height] = [640, 180];
  const [left, right, top, bottom] = [52, 12, 10, 24];
  const mid = (top + height - bottom) / 2;
  const half = (height - bottom - top) / 2;
  const shown = play.analyses.slice(0, play.cursor + 1);
  // The side to move at each position, by the name the game gives it (White, X...); games that
  // name no side (Oware's board is seen from the mover, Nim's heaps belong to nobody) alternate.
  const named = [...new Set(shown.filter(Boolean).map((a) => a.board && a.board.to_move).filter(Boolean))];
  const byName = named.length >= 2;
  const sides = byName ? named : [t("side.first"), t("side.second")];
  const mover = (a, ply) => (byName ? a.board.to_move : sides[ply % 2]);
  const select = $("chart-side");
  if ([...select.options].map((o) => o.value).join() !== sides.join()) {
    const kept = select.value;
    select.replaceChildren(...sides.map((s) => Object.assign(document.createElement("option"), { value: s, textContent: sideName(s) })));
    if (sides.includes(kept)) select.value = kept;
  }
  const side = select.value || sides[0];
  const longest = Math.max(1, ...shown.filter((a) => a && !isEstimate(a) && a.remoteness !== null && a.remoteness !== undefined).map((a) => a.remoteness));
  const largest = Math.max(1, ...shown.filter((a) => a && isEstimate(a) && !isDecisive(a)).map((a) => Math.abs(a.value)));
  const points = shown.map((a, ply) => {
    if (!a || a.value === null || a.value === undefined) return null;
    const sign = mover(a, ply) === side ? 1 : -1;
    const said = t("chart.point", { position: ply, side: sideName(mover(a, ply)), value: describe(a, a.game) });
    if (isEstimate(a)) {
      const v = isDecisive(a) ? Math.sign(a.value) : Math.max(-1, Math.min(1, a.value / largest));
      return { y: mid - sign * v * 0.3 * half, estimate: true, said };
    }
    if (a.outcome === "draw" || !a.outcome) return { y: mid, estimate: false, said };
    const wins = (a.outcome === "win") === (sign === 1);
    const near = 1 - Math.min(a.remoteness ?? longest, longest) / (longest + 1);
    return { y: mid + (wins ? -1 : 1) * (0.4 + 0.6 * near) * half, estimate: false, said };
  });
  const x = (i) => left + (i * (width - left - right)) / Math.max(1, points.length - 1);
  const line = (y, cls) => svg.appendChild(svgElement("line", { class: cls, x1: left, y1: y, x2: width - right, y2: y }));
  line(top, "edge-line");
  line(mid, "draw-line");
  line(height - bottom, "edge-line");
  const label = (y, text, cls) => svg.appendChild(svgElement("text", { class: cls, x: left - 6, y: y + 4, "text-anchor": "end" }, text));
  label(top + 8, t("chart.wins"), "win");
  label(mid, t("chart.draw"), "draw");
  label(height - bottom - 6, t("chart.loses"), "lose");
  // Move numbers along the bottom: every move when few, else about ten of them.
  const every = Math.max(1, Math.ceil(points.length / 10));
  points.forEach((_, i) => {
    if (i % every === 0 || i === points.length - 1) {
      svg.appendChild(svgElement("text", { class: "tick", x: x(i), y: height - 6, "text-anchor": "middle" }, String(i)));
    }
  });
  const path = points.map((p, i) => (p === null ? null : `${x(i)},${p.y}`)).filter(Boolean);
  if (path.length > 1) svg.appendChild(svgElement("polyline", { class: "history", points: path.join(" ") }));
  points.forEach((p, i) => {
    if (p === null) return;
    const point = svgElement("circle", { class: p.estimate ? "point estimate" : "point", cx: x(i), cy: p.y, r: 3.5 });
    point.appendChild(svgElement("title", {}, p.said));
    svg.appendChild(point);
  });
}

$("game").addEventListener("change", newGame);
for (const id of ["width", "height", "rules"]) $(id).addEventListener("change", newGame);
$("chart-side").addEventListener("change", drawChart);

// The arrow keys move the focus over a board's cells as over a grid, skipping the cells that
// cannot be played (Enter then plays the one focused).
$("board").addEventListener("keydown", (e) => {
  const board = $("board");
  const cols = Number(board.style.getPropertyValue("--cols")) || 1;
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[e.key];
  const cells = [...board.children];
  const from = cells.indexOf(document.activeElement);
  if (!step || from < 0) return;
  for (let i = from + step; i >= 0 && i < cells.length; i += step) {
    if (cells[i].tabIndex >= 0) {
      e.preventDefault();
      cells[i].focus();
      return;
    }
  }
});
$("mode").addEventListener("change", () => {
  play.autoFlip = true;
  refresh();
});
$("flip").addEventListener("click", () => {
  play.flipped = !play.flipped;
  const shown = play.analyses[play.cursor];
  if (shown) render(shown);
});
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
$("load").addEventListener("click", () => loadPosition($("position").value.trim()));
$("position").addEventListener("keydown", (e) => {
  if (e.key === "Enter") loadPosition($("position").value.trim());
});
$("cancel").addEventListener("click", () => {
  clearTimeout(play.engineTimer);
  if (play.abort) play.abort.abort();
  // Back to the last position shown, which is what the board still shows.
  if (play.cursor > 0 && play.analyses[play.cursor - 1]) {
    play.cursor -= 1;
    $("position").value = play.history[play.cursor];
    render(play.analyses[play.cursor]);
    drawChart();
    if (currentView() === "play") updateLink();
  }
});
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    const area = Object.assign(document.createElement("textarea"), { value: text });
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
}

$("copy").addEventListener("click", () => copyText($("position").value));
$("copy-link").addEventListener("click", () => copyText(location.href));

// ---------------------------------------------------------------- links

// The address follows what is shown, so that it can be bookmarked and shared:
// ?game=chess&position=FEN (or fen=FEN) with the game's options, ?tree=... for a tree,
// ?graph=... for a graph, and the view in the fragment.
function updateAddress() {
  const view = currentView();
  if (view === "trees") updateTreeLink();
  else if (view === "graphs") updateGraphLink();
  else updateLink();
}

function updateLink() {
  const g = currentGame();
  if (!g || !play.history.length) return;
  const params = new URLSearchParams({ game: g.name });
  const query = gameQuery();
  for (const name of ["width", "height", "rules"]) if (query.has(name)) params.set(name, query.get(name));
  params.set("position", play.history[play.cursor]);
  history.replaceState(null, "", `?${params}#play`);
}

function linkedTree(params) {
  if (params.has("tree")) $("tree-text").value = params.get("tree");
  if (params.has("algo")) $("algo").value = params.get("algo");
  if (params.has("order")) $("order").value = params.get("order");
}

function updateTreeLink() {
  const params = new URLSearchParams({ tree: $("tree-text").value, algo: $("algo").value, order: $("order").value });
  history.replaceState(null, "", `?${params}#trees`);
}

function updateGraphLink() {
  const params = new URLSearchParams({ graph: $("graph-text").value, model: $("model").value });
  history.replaceState(null, "", `?${params}#graphs`);
}

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
    if (currentView() === "trees") updateTreeLink();
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

function backTree() {
  if (!trees.report || trees.step < 0) return;
  trees.step -= 1;
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
    // The window each node has now: entered with, then narrowed after each child (alpha-beta).
    if (s.step !== "prune") state.window[s.id] = [s.alpha, s.beta];
    if (s.step === "leaf" || s.step === "exit" || s.step === "update") state.value[s.id] = s.value;
    if (s.step === "leaf") state.leaves += 1;
    if (s.step === "prune") markPruned(s.id);
  }
  return state;
}

// The principal path of a finished search: from the root, the first child searched whose value
// is the node's own (the move that decides it), down to a leaf.
function principalPath(report, state) {
  const path = new Set([0]);
  let id = 0;
  while (report.shape[id].children.length > 0) {
    const next = report.shape[id].children.find((c) => !state.pruned[c] && state.value[c] === state.value[id]);
    if (next === undefined) break;
    path.add(next);
    id = next;
  }
  return path;
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
  const done = trees.step >= report.trace.length - 1;
  const principal = done ? principalPath(report, state) : new Set();
  for (const node of nodes) {
    for (const c of node.children) {
      let cls = state.pruned[c] ? "edge pruned" : "edge";
      if (principal.has(node.id) && principal.has(c)) cls += " principal";
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
    if (principal.has(node.id)) classes.push("principal");
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
    // Labels and windows sit beside the node at its own height, where no edge runs: edges end
    // at the top of a node and leave from its bottom.
    if (node.label) g.appendChild(svgElement("text", { class: "label", x: x - 24, y: y + 4, "text-anchor": "end" }, node.label));
    const w = state.window[node.id];
    const stepping = trees.step < report.trace.length - 1;
    // Windows on inner nodes (alpha over beta, on the right); on a leaf only while the step is
    // there, below it, so that neighbours do not overlap.
    if (w && report.algo === "alphabeta" && (!leaf || (stepping && state.current === node.id))) {
      const [alpha, beta] = [`α=${bound(w[0], "-∞")}`, `β=${bound(w[1], "+∞")}`];
      const closed = w[0] !== null && w[1] !== null && w[0] >= w[1];
      const text = svgElement("text", { class: closed ? "window closed" : "window", x: leaf ? x : x + 22, y: leaf ? y + 30 : y - 2, "text-anchor": leaf ? "middle" : "start" });
      if (leaf) {
        text.textContent = `${alpha} ${beta}`;
      } else {
        text.appendChild(svgElement("tspan", { x: x + 22 }, alpha));
        text.appendChild(svgElement("tspan", { x: x + 22, dy: 13 }, beta));
      }
      g.appendChild(text);
    }
    g.appendChild(svgElement("title", {}, node.name || "root"));
    svg.appendChild(g);
  }
  const totalSteps = report.trace.length;
  $("tree-status").textContent = done
    ? t("tree.done", { algo: t(`algo.${report.algo}`), order: t(`order.${report.order}`), value: report.value, best: report.best ?? "-", leaves: report.leaves, total: report.total_leaves, pruned: report.pruned.join(" ") || t("tree.none") })
    : t("tree.step", { step: trees.step + 1, steps: totalSteps, what: describeStep(report.trace[trees.step]), leaves: state.leaves });
}

function describeStep(s) {
  if (!s) return t("tree.start");
  const name = s.node || t("tree.root");
  const [alpha, beta] = [bound(s.alpha, "-∞"), bound(s.beta, "+∞")];
  const window = s.alpha !== undefined ? t("tree.window", { alpha, beta }) : "";
  switch (s.step) {
    case "enter": return t("tree.enter", { name, window });
    case "leaf": return t("tree.leaf", { name, value: s.value });
    case "update": {
      const closed = s.alpha !== null && s.beta !== null && s.alpha >= s.beta;
      return t("tree.update", { name, value: s.value, alpha, beta, closed: closed ? t("tree.closed") : "" });
    }
    case "exit": return t("tree.exit", { name, value: s.value });
    default: return t("tree.prune", { name });
  }
}

$("tree-run").addEventListener("click", runTree);
$("tree-step").addEventListener("click", stepTree);
$("tree-back").addEventListener("click", backTree);
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

const graphs = { report: null };

async function solveGraph() {
  $("graph-error").textContent = "";
  let report;
  try {
    report = await api(`/api/graph?model=${$("model").value}`, { method: "POST", body: $("graph-text").value });
  } catch (e) {
    const shown = $("graph-svg").childElementCount > 0;
    $("graph-error").textContent = shown ? t("graph.kept", { error: e.message }) : e.message;
    return;
  }
  graphs.report = report;
  drawGraph(report);
  if (currentView() === "graphs") updateGraphLink();
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
  // Arrowheads sized in pixels (not by the thin edge's width), their tip at the circle's edge.
  const marker = svgElement("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 25, refY: 5, markerWidth: 10, markerHeight: 10, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" });
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
  for (const h of ["position", "outcome", "value", "remoteness", "best"]) header.appendChild(Object.assign(document.createElement("th"), { textContent: t(`graph.${h}`) }));
  names.forEach((name, i) => {
    const r = report.positions[name];
    const g = svgElement("g", { class: `node ${r.outcome}`, "data-name": name });
    g.appendChild(svgElement("circle", { cx: p[i].x, cy: p[i].y, r: 14 }));
    g.appendChild(svgElement("text", { x: p[i].x, y: p[i].y + 4, "text-anchor": "middle" }, name));
    const detail = [r.value !== null ? `${r.value}` : null, r.remoteness !== null ? `r${r.remoteness}` : null].filter(Boolean).join(" ");
    if (detail) g.appendChild(svgElement("text", { x: p[i].x, y: p[i].y + 28, "text-anchor": "middle" }, detail));
    g.appendChild(svgElement("title", {}, `${name}: ${t(`outcome.${r.outcome}`)}${r.value !== null ? ` ${r.value}` : ""}`));
    svg.appendChild(g);
    const row = table.insertRow();
    row.dataset.name = name;
    row.className = r.outcome;
    for (const text of [name, t(`outcome.${r.outcome}`), r.value ?? "", r.remoteness ?? "", r.best.join(" ")]) row.insertCell().textContent = String(text);
  });
  // The drawing cropped to the positions laid out, without the empty margins of the layout box.
  if (p.length > 0) {
    const [x0, x1] = [Math.min(...p.map((q) => q.x)) - 40, Math.max(...p.map((q) => q.x)) + 40];
    const [y0, y1] = [Math.min(...p.map((q) => q.y)) - 30, Math.max(...p.map((q) => q.y)) + 45];
    svg.setAttribute("viewBox", `${x0} ${y0} ${x1 - x0} ${y1 - y0}`);
    svg.style.width = `${x1 - x0}px`;
    svg.style.height = `${y1 - y0}px`;
  }
  const count = (o) => names.filter((n) => report.positions[n].outcome === o).length;
  $("graph-status").textContent = t("graph.status", { model: t(`model.${report.model}`), positions: names.length, win: count("win"), lose: count("lose"), draw: count("draw") });
}

$("graph-solve").addEventListener("click", solveGraph);
$("model").addEventListener("change", solveGraph);

// ---------------------------------------------------------------- start

// The games' names in the page's language ("Tic-tac-toe", "Morpion").
function nameGames() {
  for (const option of $("game").options) {
    const g = play.games.find((game) => game.name === option.value);
    option.textContent = TEXTS[LANG][`game.${g.name}`] ?? g.title ?? g.name;
  }
}

// The language switch: every text again, in the language chosen, without losing the game.
$("lang").addEventListener("change", () => {
  setLanguage($("lang").value);
  nameGames();
  const shown = play.analyses[play.cursor];
  if (shown) render(shown);
  drawChart();
  if (trees.report) drawTree();
  if (graphs.report) drawGraph(graphs.report);
});

(async function start() {
  translatePage();
  $("lang").value = LANG;
  const params = new URLSearchParams(location.search);
  const view = location.hash.slice(1) || (params.has("tree") ? "trees" : params.has("graph") ? "graphs" : "play");
  showView(["play", "trees", "graphs"].includes(view) ? view : "play");
  linkedTree(params);
  if (params.has("graph")) $("graph-text").value = params.get("graph");
  if (params.has("model")) $("model").value = params.get("model");
  try {
    play.games = (await api("/api/games")).games;
  } catch (e) {
    $("play-error").textContent = e.message;
    return;
  }
  for (const g of play.games) $("game").appendChild(Object.assign(document.createElement("option"), { value: g.name }));
  nameGames();
  const linked = play.games.find((g) => g.name === params.get("game") || (g.aliases || []).includes(params.get("game")));
  $("game").value = linked ? linked.name : "tictactoe";
  for (const name of ["width", "height", "rules"]) if (params.has(name)) $(name).value = params.get(name);
  const position = params.get("position") ?? params.get("fen");
  if (linked && position) {
    showOptions();
    await loadPosition(position);
  } else {
    await newGame();
  }
  await runTree();
  await solveGraph();
  updateAddress();
})();
