// descent serve: one page, routed by the URL's fragment.
//   #/                          the runs and the games
//   #/run/NAME                  a run: live curves, checkpoints, evaluations, games, config
//   #/run/NAME/game/N           the run's self-play game number N (games.jsonl's), move by move
//   #/play?game=G&agent=A&side=p0&moves=m1,m2   the board against an agent
"use strict";

const view = document.getElementById("view");
let stopPolling = () => {};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "onclick") node.onclick = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  };
  const reply = await fetch(path, options);
  const data = await reply.json().catch(() => ({ error: `${reply.status} ${reply.statusText}` }));
  if (!reply.ok) throw new Error(data.error || `${reply.status}`);
  return data;
}

function hours(seconds) {
  return seconds >= 3600 ? `${(seconds / 3600).toFixed(1)} h` : `${(seconds / 60).toFixed(1)} min`;
}

// An evaluation line's 95 % interval of win − loss, [low, high] (lines of earlier builds: ± ci95).
function evaluationInterval(l) {
  if (Array.isArray(l.win_minus_loss_ci95)) return l.win_minus_loss_ci95;
  return [l.win_minus_loss - l.ci95, l.win_minus_loss + l.ci95];
}

function evaluationText(l) {
  const [low, high] = evaluationInterval(l);
  const signed = (v) => (v >= 0 ? "+" : "") + v.toFixed(2);
  return `${signed(l.win_minus_loss)} [${signed(low)}, ${signed(high)}]`;
}

// A run's last evaluation in a few words: win − loss [interval] against whom, when.
function strengthText(line) {
  if (!line) return "not evaluated";
  if (line.mean_score !== undefined) return `mean score ${line.mean_score.toFixed(1)} at ${line.game} games`;
  const against = line.baseline || line.opponent;
  return `${evaluationText(line)} vs ${against} at ${line.game} games${line.at_end ? " (end)" : ""}`;
}

// The position's drawing when the game has one (its SVG, made by the server), else the text.
function showBoard(drawing, picture, position) {
  if (position.board_svg) {
    drawing.innerHTML = position.board_svg;
    picture.hidden = true;
  } else {
    drawing.replaceChildren();
    picture.hidden = false;
    picture.textContent = position.picture;
  }
}

// ---- charts ----

// At most `limit` points: means over equal buckets of x.
function thin(points, limit = 400) {
  if (points.length <= limit) return points;
  const out = [];
  const size = points.length / limit;
  for (let i = 0; i < limit; i++) {
    const bucket = points.slice(Math.floor(i * size), Math.floor((i + 1) * size));
    const mean = (k) => bucket.reduce((s, p) => s + p[k], 0) / bucket.length;
    out.push(bucket[0].length > 2 ? [mean(0), mean(1), mean(2), mean(3)] : [mean(0), mean(1)]);
  }
  return out;
}

// Round tick values from `low` to `high`, about `count` of them, 1, 2 or 5 times a power of ten
// apart.
function ticks(low, high, count = 4) {
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(low / step) * step; v <= high + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

// A line chart of [x, y] points, or [x, y, low, high] with a band; `axes` titles its axes and
// may fix the y range (`axes.y_range`); a y range across 0 gets a zero line.
function lineChart(id, title, points, axes) {
  const width = 320, height = 176, left = 56, bottom = 34, top = 8, right = 12;
  const box = el("div", { class: "chart", id });
  box.append(el("h3", {}, title));
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  box.append(svg);
  points = thin(points.filter((p) => p.every(Number.isFinite)));
  if (points.length === 0) {
    box.append(el("p", { class: "muted" }, "no data yet"));
    return box;
  }
  const xs = points.map((p) => p[0]);
  const ys = points.flatMap((p) => p.slice(1));
  let [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if (axes.y_range) [y0, y1] = [Math.min(y0, axes.y_range[0]), Math.max(y1, axes.y_range[1])];
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const sx = (x) => left + ((x - x0) / (x1 - x0)) * (width - left - right);
  const sy = (y) => height - bottom - ((y - y0) / (y1 - y0)) * (height - bottom - top);
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
  };
  const label = (v) => (Math.abs(v) >= 1000 ? v.toFixed(0) : +v.toPrecision(3)).toString();
  for (const y of ticks(y0, y1)) {
    add("line", { class: "grid", x1: left, y1: sy(y), x2: width - right, y2: sy(y) });
    add("text", { class: "tick", x: left - 4, y: sy(y) + 3, "text-anchor": "end" }, label(y));
  }
  for (const x of ticks(x0, x1)) {
    add("line", { class: "grid", x1: sx(x), y1: top, x2: sx(x), y2: height - bottom });
    add("text", { class: "tick", x: sx(x), y: height - bottom + 12, "text-anchor": "middle" }, label(x));
  }
  if (y0 < 0 && y1 > 0) add("line", { class: "zero", x1: left, y1: sy(0), x2: width - right, y2: sy(0) });
  add("line", { class: "axis", x1: left, y1: height - bottom, x2: width - right, y2: height - bottom });
  add("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom });
  add("text", { class: "axis-title", x: (left + width - right) / 2, y: height - 4, "text-anchor": "middle" }, axes.x);
  add("text", { class: "axis-title", x: 0, y: 0, "text-anchor": "middle",
    transform: `translate(9 ${(top + height - bottom) / 2}) rotate(-90)` }, axes.y);
  if (points[0].length > 2) {
    const upper = points.map((p) => `${sx(p[0])},${sy(p[3])}`);
    const lower = points.map((p) => `${sx(p[0])},${sy(p[2])}`).reverse();
    add("polygon", { class: "band", points: upper.concat(lower).join(" ") });
  }
  const d = points.map((p, i) => `${i ? "L" : "M"}${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join("");
  add("path", { class: "line", d });
  if (points.length === 1) add("circle", { cx: sx(points[0][0]), cy: sy(points[0][1]), r: 3, fill: "#1565c0" });
  return box;
}

// ---- pages ----

async function runsPage() {
  const [runs, games] = await Promise.all([api("/api/runs"), api("/api/games")]);
  view.replaceChildren(el("h1", {}, "Runs"));
  if (runs.length === 0) view.append(el("p", { class: "muted" }, "No run directories here yet (descent train …)."));
  else {
    const table = el("table", { id: "runs-list" },
      el("tr", {}, el("th", {}, "run"), el("th", {}, "game"), el("th", {}, "recipe"), el("th", {}, "games"),
        el("th", {}, "training time"), el("th", {}, "strength (win − loss, 95 %)"), el("th", {}, "checkpoints"),
        el("th", {}, "last change")));
    for (const run of runs) {
      table.append(el("tr", {},
        el("td", {}, el("a", { class: "run", href: `#/run/${encodeURIComponent(run.name)}` }, run.name)),
        el("td", {}, run.game || "?"), el("td", {}, run.recipe), el("td", {}, String(run.games)),
        el("td", {}, hours(run.elapsed_seconds)), el("td", { class: "strength" }, strengthText(run.strength)),
        el("td", {}, String(run.checkpoints.length)), el("td", {}, `${hours(run.idle_seconds)} ago`)));
    }
    view.append(table);
  }
  view.append(el("h2", {}, "Play"));
  const list = el("ul", { id: "games-list" });
  for (const game of games) {
    list.append(el("li", {}, el("a", { href: `#/play?game=${encodeURIComponent(game.name)}` }, game.name),
      " — ", el("span", { class: "muted" }, game.description)));
  }
  view.append(list);
}

async function runPage(name) {
  const details = await api(`/api/runs/${encodeURIComponent(name)}`);
  const summary = details.summary || {};
  view.replaceChildren(el("h1", {}, `Run ${name}`),
    el("p", { id: "run-summary" }, `${summary.game || "?"} · ${summary.games || 0} games learned · ${hours(summary.elapsed_seconds || 0)} of training`));
  const charts = el("div", { class: "charts", id: "charts" });
  const evals = el("div", { id: "evaluations" });
  view.append(el("h2", {}, "Strength"), strengthSection(name, details), charts, el("h2", {}, "Evaluations"), evals);
  const player = summary.player || "ubfms";
  const agent = `${player}:model=${details.model},time=1s`;
  const checkpoints = el("ul", { id: "checkpoints" });
  for (const games of (summary.checkpoints || []).slice(-10).reverse()) {
    checkpoints.append(el("li", {}, `ckpt-${games} `,
      el("a", { href: `#/play?game=${encodeURIComponent(summary.game)}&agent=${encodeURIComponent(`${player}:model=${details.model}/ckpt-${games},time=1s`)}` }, "play against it")));
  }
  view.append(el("h2", {}, "Checkpoints"),
    el("p", {}, el("a", { id: "play-latest", href: `#/play?game=${encodeURIComponent(summary.game)}&agent=${encodeURIComponent(agent)}` }, "Play against the latest network")),
    checkpoints);
  const gamesBox = el("div", { id: "recent-games" });
  view.append(el("h2", {}, "Latest self-play games"), gamesBox, el("h2", {}, "Configuration"), el("pre", {}, details.config));
  const games = await api(`/api/runs/${encodeURIComponent(name)}/games?count=20`);
  const list = el("ol", { reversed: "" });
  games.games.slice().reverse().forEach((game) => {
    list.append(el("li", {}, el("a", { href: `#/run/${encodeURIComponent(name)}/game/${game.game}` },
      `game ${game.game}: ${game.moves.length} moves, result ${game.result_p0 > 0 ? "p0 wins" : game.result_p0 < 0 ? "p1 wins" : "draw"}`)));
  });
  gamesBox.append(games.games.length ? list : el("p", { class: "muted" }, "no games recorded (games.jsonl)"));

  // Live curves: poll for new metrics lines.
  const lines = [];
  let from = 0, live = true;
  const draw = () => {
    const played = lines.filter((l) => l.kind === "game");
    const evaluations = lines.filter((l) => l.kind === "evaluation");
    charts.replaceChildren(
      lineChart("chart-loss", "loss (per game learned)", played.map((l) => [l.game, l.loss]), { x: "games learned", y: "loss" }),
      lineChart("chart-speed", "games per hour", played.map((l) => [l.game, l.games_per_hour]), { x: "games learned", y: "games / hour" }),
      lineChart("chart-score", "evaluation against the baseline, 95 % interval",
        evaluations.map((l) => [l.game, l.win_minus_loss, ...evaluationInterval(l)]),
        { x: "games learned", y: "win − loss", y_range: [-1, 1] }),
      lineChart("chart-plies", "game length (plies)", played.map((l) => [l.game, l.plies]), { x: "games learned", y: "plies" }));
    // The version lag says something only where games are played apart from the learning.
    if (played.some((l) => l.lag > 0)) {
      charts.append(lineChart("chart-lag", "network version lag", played.map((l) => [l.game, l.lag]), { x: "games learned", y: "versions" }));
    }
    evals.replaceChildren(evaluations.length === 0 ? el("p", { class: "muted" }, "none yet") :
      el("table", {}, el("tr", {}, el("th", {}, "games"), el("th", {}, "opponent"), el("th", {}, "W / D / L"), el("th", {}, "score")),
        ...evaluations.slice(-10).map((l) => el("tr", {}, el("td", {}, String(l.game)), el("td", {}, l.opponent),
          el("td", {}, `${l.wins} / ${l.draws} / ${l.losses}`), el("td", {}, evaluationText(l))))));
  };
  const poll = async () => {
    if (!live) return;
    try {
      const reply = await api(`/api/runs/${encodeURIComponent(name)}/metrics?from=${from}`);
      if (reply.restarted) lines.length = 0;
      lines.push(...reply.lines);
      const more = reply.next !== from && reply.lines.length > 0;
      from = reply.next;
      draw();
      setTimeout(poll, more ? 0 : 2000);
    } catch (e) { showError(e.message); setTimeout(poll, 5000); }
  };
  stopPolling = () => { live = false; };
  poll();
}

// What a run's page says of its strength: the last evaluation, the ladder of its networks
// (`descent ladder`) with a chart, and the `descent eval --out` reports written inside it.
function strengthSection(name, details) {
  const box = el("div", { id: "strength" });
  box.append(el("p", { id: "strength-now" }, `Last evaluation: ${strengthText(details.summary.strength)}`));
  const ladder = details.ladder;
  if (!ladder) {
    box.append(el("p", { class: "muted", id: "ladder-none" },
      `No ladder yet: descent ladder ${details.model} rates the run's networks against ${"mcts:time=100ms"} and each other.`));
  } else {
    const signed = (v) => (v >= 0 ? "+" : "") + v.toFixed(0);
    box.append(el("h3", {}, `Ladder: Elo against ${ladder.anchor} (rated 0), ${ladder.games_per_pair} games a pair, 95 %`),
      el("div", { class: "charts" }, lineChart("chart-ladder", "Elo of each network",
        ladder.networks.map((n) => [n.games, n.elo, n.elo - n.elo_ci95, n.elo + n.elo_ci95]), { x: "games learned", y: "Elo" })),
      el("table", { id: "ladder" }, el("tr", {}, el("th", {}, "games"), el("th", {}, "training time"), el("th", {}, "Elo (95 %)"), el("th", {}, "")),
        ...ladder.networks.map((n) => el("tr", { class: n.games === ladder.best ? "best" : "" },
          el("td", {}, String(n.games)), el("td", {}, n.training_seconds == null ? "-" : hours(n.training_seconds)),
          el("td", {}, `${signed(n.elo)} ± ${n.elo_ci95.toFixed(0)}`), el("td", {}, n.games === ladder.best ? "best" : "")))));
  }
  const reports = details.evaluation_reports || [];
  if (reports.length > 0) {
    box.append(el("h3", {}, "Evaluations written inside the run (descent eval --out)"),
      el("table", { id: "eval-reports" }, el("tr", {}, el("th", {}, "report"), el("th", {}, "agent"), el("th", {}, "opponent"),
        el("th", {}, "W / D / L"), el("th", {}, "win − loss (95 %)")),
        ...reports.map((r) => el("tr", {}, el("td", {}, r.dir), el("td", {}, r.agent), el("td", {}, r.opponent),
          el("td", {}, `${r.wins} / ${r.draws} / ${r.losses}`), el("td", {}, evaluationText(r))))));
  }
  return box;
}

async function gameViewer(name, number) {
  let found;
  try {
    found = await api(`/api/runs/${encodeURIComponent(name)}/games/${encodeURIComponent(number)}`);
  } catch (e) {
    view.replaceChildren(el("h1", {}, `Run ${name}: game ${number}`),
      el("p", { id: "viewer-missing" }, e.message),
      el("p", {}, el("a", { href: `#/run/${encodeURIComponent(name)}` }, "back to the run")));
    return;
  }
  const games = { game: found.game };
  const game = found.record;
  let ply = 0;
  const picture = el("pre", { class: "picture", id: "viewer-board" });
  const drawing = el("div", { class: "drawing", id: "viewer-drawing" });
  const info = el("p", { id: "viewer-info" });
  const moves = el("div", { class: "moves" });
  const show = async () => {
    const position = await api("/api/position", { game: games.game, moves: game.moves.slice(0, ply) });
    showBoard(drawing, picture, position);
    const value = game.values_p0[ply];
    info.textContent = `ply ${ply} of ${game.moves.length}` +
      (ply < game.moves.length ? ` · next move ${game.moves[ply]}` : "") +
      (value !== undefined ? ` · search value (p0's view) ${value.toFixed(3)}` : "") +
      (position.result ? ` · ${position.result}` : "");
    [...moves.children].forEach((m, i) => m.classList.toggle("current", i === ply - 1));
  };
  game.moves.forEach((m, i) => moves.append(el("span", { onclick: () => { ply = i + 1; show(); } },
    el("small", { class: "move-number" }, `${i + 1}.`), m)));
  const step = (d) => () => { ply = Math.max(0, Math.min(game.moves.length, ply + d)); show(); };
  view.replaceChildren(el("h1", {}, `Run ${name}: game ${game.game}`),
    el("p", {}, el("a", { href: `#/run/${encodeURIComponent(name)}` }, "back to the run")),
    el("div", { class: "controls" }, el("button", { onclick: () => { ply = 0; show(); }, title: "start" }, "|◀"),
      el("button", { id: "viewer-back", onclick: step(-1) }, "◀"), el("button", { id: "viewer-next", onclick: step(1) }, "▶"),
      el("button", { onclick: () => { ply = game.moves.length; show(); }, title: "end" }, "▶|")),
    drawing, picture, info, moves);
  await show();
}

async function playPage(params) {
  const games = await api("/api/games");
  const state = {
    game: params.get("game") || "tic_tac_toe",
    agent: params.get("agent") || "mcts:iters=2000",
    human: params.get("side") || "p0",
    moves: (params.get("moves") || "").split(",").filter((m) => m),
    value: null,
  };
  const gameSelect = el("select", { id: "game" }, ...games.map((g) => el("option", { value: g.name }, g.name)));
  if (!games.some((g) => g.name === state.game)) gameSelect.append(el("option", { value: state.game }, state.game));
  gameSelect.value = state.game;
  const agentInput = el("input", { type: "text", id: "agent", value: state.agent });
  const sideSelect = el("select", { id: "side" }, el("option", { value: "p0" }, "I play p0 (first)"), el("option", { value: "p1" }, "I play p1 (second)"));
  sideSelect.value = state.human;
  const picture = el("pre", { class: "picture", id: "board" });
  const drawing = el("div", { class: "drawing", id: "board-drawing" });
  const sides = el("p", { id: "sides" });
  const status = el("p", { id: "status" });
  // The cells clicked so far towards a move, and the legal moves with their cells.
  let picked = [];
  let current = null;
  const legal = el("div", { class: "legal", id: "legal-moves" });
  const result = el("p", { id: "result" });
  const moveInput = el("input", { type: "text", id: "move-text", placeholder: "or type a move" });
  const notation = el("p", { class: "muted", id: "notation" });
  let busy = false;

  const myTurn = () => current && !current.terminal && current.to_move === state.human && !busy;
  const candidates = (prefix) => current.legal.map((text, i) => ({ text, cells: current.legal_cells[i] }))
    .filter((m) => m.cells.length >= prefix.length && prefix.every((c, k) => m.cells[k] === c));
  // Marks the cells picked and those that continue a legal move; offers the moves the cells
  // picked so far complete when more than one does (or moves without cells: a pass).
  const markTargets = () => {
    drawing.querySelectorAll("[data-cell]").forEach((g) => g.classList.remove("target", "picked"));
    legal.replaceChildren();
    if (!myTurn()) return;
    for (const cell of picked) drawing.querySelector(`[data-cell="${CSS.escape(cell)}"]`)?.classList.add("picked");
    const next = candidates(picked);
    for (const m of next) {
      if (m.cells.length > picked.length) drawing.querySelector(`[data-cell="${CSS.escape(m.cells[picked.length])}"]`)?.classList.add("target");
    }
    const buttons = current.board_svg ? next.filter((m) => m.cells.length === picked.length) : next;
    if (current.board_svg && picked.length > 0 && buttons.length === 1 && next.length === 1) return;
    for (const m of buttons) legal.append(el("button", { class: "legal-move", "data-move": m.text, onclick: () => play(m.text) }, m.text));
  };
  const clickCell = (cell) => {
    if (!myTurn()) return;
    let next = candidates(picked.concat([cell]));
    if (next.length === 0) { picked = []; next = candidates([cell]); }
    if (next.length === 0) { markTargets(); return; }
    picked.push(cell);
    const complete = next.filter((m) => m.cells.length === picked.length);
    if (complete.length === 1 && next.length === 1) { const text = complete[0].text; picked = []; play(text); return; }
    markTargets();
  };
  drawing.addEventListener("click", (event) => {
    const target = event.target.closest("[data-cell]");
    if (target) clickCell(target.getAttribute("data-cell"));
  });
  const render = (position) => {
    current = position;
    picked = [];
    showBoard(drawing, picture, position);
    state.moves = position.moves;
    const agentSide = state.human === "p0" ? "p1" : "p0";
    const sideName = (side) => position.sides[side === "p0" ? 0 : 1] + (side === "p0" && position.players > 1 ? ", moves first" : "");
    sides.textContent = `You: ${sideName(state.human)} · agent ${state.agent}: ${sideName(agentSide)}`;
    const url = `#/play?game=${encodeURIComponent(state.game)}&agent=${encodeURIComponent(state.agent)}&side=${state.human}&moves=${state.moves.map(encodeURIComponent).join(",")}`;
    history.replaceState(null, "", url);
    notation.textContent = position.notation;
    const value = state.value === null ? "" : ` · agent's value (p0's view) ${state.value.toFixed(3)}`;
    const toMove = position.sides[position.to_move === "p0" ? 0 : 1];
    status.textContent = position.terminal ? `ply ${position.ply} · game over${value}` : `ply ${position.ply} · ${toMove} to move${value}`;
    result.textContent = position.result ? `Game over: ${position.result}` : "";
    // Green when the person won, red when the agent did, plain for a draw or a score.
    const humanResult = position.result_p0 === null || position.players === 1 ? 0 : position.result_p0 * (state.human === "p0" ? 1 : -1);
    result.className = humanResult > 0 ? "won" : humanResult < 0 ? "lost" : "";
    markTargets();
  };
  const refresh = async () => {
    const position = await api("/api/position", { game: state.game, moves: state.moves });
    render(position);
    if (!position.terminal && position.to_move !== state.human) await agentMove();
  };
  const agentMove = async () => {
    busy = true;
    status.textContent = "the agent is thinking…";
    try {
      // A reply is the agent's whole turn (Connect6's two stones, Arimaa's steps); in a
      // one-player game, where the agent may play every move, it plays on move by move.
      let position = null;
      do {
        const reply = await api("/api/agent-move", { game: state.game, moves: state.moves, agent: state.agent });
        state.value = reply.value_p0;
        render(reply.position);
        position = reply.position;
      } while (!position.terminal && position.to_move !== state.human && drawing.isConnected);
    } finally { busy = false; markTargets(); }
  };
  const guard = (action) => async () => {
    if (busy) return;
    showError("");
    try { await action(); } catch (e) { showError(e.message); }
  };
  // Busy from the click on: a second click before the reply is ignored, not a second move.
  const play = (move) => guard(async () => {
    busy = true;
    markTargets();
    state.moves = state.moves.concat([move]);
    try { await refresh(); } catch (e) { state.moves.pop(); throw e; } finally { busy = false; markTargets(); }
  })();
  const undo = guard(async () => {
    // Back to the person's previous turn: the agent's replies and the person's last move.
    let position = null;
    do {
      state.moves.pop();
      position = await api("/api/position", { game: state.game, moves: state.moves });
    } while (state.moves.length > 0 && position.to_move !== state.human);
    state.value = null;
    await refresh();
  });
  const restart = guard(async () => {
    const game = gameSelect.value, agent = agentInput.value.trim();
    // Refused here, before the game starts, not at the agent's first move.
    await api("/api/agent-check", { game, agent });
    state.game = game; state.agent = agent; state.human = sideSelect.value;
    state.moves = []; state.value = null;
    await refresh();
  });
  view.replaceChildren(el("h1", {}, "Play"),
    el("div", { class: "controls" }, gameSelect, "against", agentInput, sideSelect,
      el("button", { id: "new-game", onclick: restart }, "New game"), el("button", { id: "undo", onclick: undo }, "Undo")),
    sides, drawing, picture, status, result, legal,
    el("form", { onsubmit: "return false" }, moveInput, el("button", { id: "play-typed", onclick: () => { play(moveInput.value.trim()); moveInput.value = ""; } }, "Play")),
    notation);
  await guard(refresh)();
}

async function route() {
  stopPolling();
  stopPolling = () => {};
  showError("");
  const hash = decodeURI(location.hash.slice(1)) || "/";
  const [path, query] = location.hash.slice(1).split("?");
  const parts = path.split("/").filter((p) => p).map(decodeURIComponent);
  try {
    if (parts[0] === "run" && parts[2] === "game") await gameViewer(parts[1], parts[3]);
    else if (parts[0] === "run") await runPage(parts[1]);
    else if (parts[0] === "play") await playPage(new URLSearchParams(query || ""));
    else await runsPage();
  } catch (e) {
    showError(e.message);
    if (hash === "/") view.replaceChildren(el("p", {}, "The server does not answer."));
  }
}

window.addEventListener("hashchange", route);
route();
