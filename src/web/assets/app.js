// descent serve: one page, routed by the URL's fragment.
//   #/                          the runs and the games
//   #/run/NAME                  a run: live curves, checkpoints, evaluations, games, config
//   #/run/NAME/game/K           the K-th of the run's latest games, move by move
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

// A line chart of [x, y] points, or [x, y, low, high] with a band.
function lineChart(id, title, points) {
  const width = 320, height = 160, left = 44, bottom = 20, top = 8, right = 8;
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
  add("line", { class: "axis", x1: left, y1: height - bottom, x2: width - right, y2: height - bottom });
  add("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom });
  const label = (v) => (Math.abs(v) >= 1000 ? v.toFixed(0) : +v.toPrecision(3)).toString();
  add("text", { x: 2, y: top + 8 }, label(y1));
  add("text", { x: 2, y: height - bottom }, label(y0));
  add("text", { x: left, y: height - 4 }, label(x0));
  add("text", { x: width - right - 30, y: height - 4 }, label(x1));
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
      el("tr", {}, el("th", {}, "run"), el("th", {}, "game"), el("th", {}, "games"),
        el("th", {}, "training time"), el("th", {}, "checkpoints"), el("th", {}, "last change")));
    for (const run of runs) {
      table.append(el("tr", {},
        el("td", {}, el("a", { class: "run", href: `#/run/${encodeURIComponent(run.name)}` }, run.name)),
        el("td", {}, run.game || "?"), el("td", {}, String(run.games)), el("td", {}, hours(run.elapsed_seconds)),
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
  view.append(charts, el("h2", {}, "Evaluations"), evals);
  const agent = `ubfms:model=${details.model},time=1s`;
  const checkpoints = el("ul", { id: "checkpoints" });
  for (const games of (summary.checkpoints || []).slice(-10).reverse()) {
    checkpoints.append(el("li", {}, `ckpt-${games} `,
      el("a", { href: `#/play?game=${encodeURIComponent(summary.game)}&agent=${encodeURIComponent(`ubfms:model=${details.model}/ckpt-${games},time=1s`)}` }, "play against it")));
  }
  view.append(el("h2", {}, "Checkpoints"),
    el("p", {}, el("a", { id: "play-latest", href: `#/play?game=${encodeURIComponent(summary.game)}&agent=${encodeURIComponent(agent)}` }, "Play against the latest network")),
    checkpoints);
  const gamesBox = el("div", { id: "recent-games" });
  view.append(el("h2", {}, "Latest self-play games"), gamesBox, el("h2", {}, "Configuration"), el("pre", {}, details.config));
  const games = await api(`/api/runs/${encodeURIComponent(name)}/games?count=20`);
  const list = el("ol", { reversed: "" });
  games.games.slice().reverse().forEach((game, i) => {
    const k = games.games.length - 1 - i;
    list.append(el("li", {}, el("a", { href: `#/run/${encodeURIComponent(name)}/game/${k}` },
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
      lineChart("chart-loss", "loss (per game learned)", played.map((l) => [l.game, l.loss])),
      lineChart("chart-speed", "games per hour", played.map((l) => [l.game, l.games_per_hour])),
      lineChart("chart-score", "evaluation score (wins − losses) / games, 95 % interval",
        evaluations.map((l) => [l.game, l.win_minus_loss, l.win_minus_loss - l.ci95, l.win_minus_loss + l.ci95])),
      lineChart("chart-lag", "network version lag", played.map((l) => [l.game, l.lag])),
      lineChart("chart-plies", "game length (plies)", played.map((l) => [l.game, l.plies])));
    evals.replaceChildren(evaluations.length === 0 ? el("p", { class: "muted" }, "none yet") :
      el("table", {}, el("tr", {}, el("th", {}, "games"), el("th", {}, "opponent"), el("th", {}, "W / D / L"), el("th", {}, "score")),
        ...evaluations.slice(-10).map((l) => el("tr", {}, el("td", {}, String(l.game)), el("td", {}, l.opponent),
          el("td", {}, `${l.wins} / ${l.draws} / ${l.losses}`), el("td", {}, `${l.win_minus_loss.toFixed(2)} ± ${l.ci95.toFixed(2)}`)))));
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

async function gameViewer(name, index) {
  const games = await api(`/api/runs/${encodeURIComponent(name)}/games?count=20`);
  const game = games.games[index];
  if (!game) throw new Error(`no game ${index} in run ${name}`);
  let ply = 0;
  const picture = el("pre", { class: "picture", id: "viewer-board" });
  const info = el("p", { id: "viewer-info" });
  const moves = el("div", { class: "moves" });
  const show = async () => {
    const position = await api("/api/position", { game: games.game, moves: game.moves.slice(0, ply) });
    picture.textContent = position.picture;
    const value = game.values_p0[ply];
    info.textContent = `ply ${ply} of ${game.moves.length}` +
      (ply < game.moves.length ? ` · next move ${game.moves[ply]}` : "") +
      (value !== undefined ? ` · search value (p0's view) ${value.toFixed(3)}` : "") +
      (position.result ? ` · ${position.result}` : "");
    [...moves.children].forEach((m, i) => m.classList.toggle("current", i === ply - 1));
  };
  game.moves.forEach((m, i) => moves.append(el("span", { onclick: () => { ply = i + 1; show(); } }, m)));
  const step = (d) => () => { ply = Math.max(0, Math.min(game.moves.length, ply + d)); show(); };
  view.replaceChildren(el("h1", {}, `Run ${name}: game ${game.game}`),
    el("p", {}, el("a", { href: `#/run/${encodeURIComponent(name)}` }, "back to the run")),
    el("div", { class: "controls" }, el("button", { onclick: () => { ply = 0; show(); } }, "⏮"),
      el("button", { id: "viewer-back", onclick: step(-1) }, "◀"), el("button", { id: "viewer-next", onclick: step(1) }, "▶"),
      el("button", { onclick: () => { ply = game.moves.length; show(); } }, "⏭")),
    picture, info, moves);
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
  const status = el("p", { id: "status" });
  const legal = el("div", { class: "legal", id: "legal-moves" });
  const result = el("p", { id: "result" });
  const moveInput = el("input", { type: "text", id: "move-text", placeholder: "or type a move" });
  const notation = el("p", { class: "muted", id: "notation" });
  let busy = false;

  const render = (position) => {
    picture.textContent = position.picture;
    legal.replaceChildren();
    state.moves = position.moves;
    const url = `#/play?game=${encodeURIComponent(state.game)}&agent=${encodeURIComponent(state.agent)}&side=${state.human}&moves=${state.moves.map(encodeURIComponent).join(",")}`;
    history.replaceState(null, "", url);
    notation.textContent = position.notation;
    const value = state.value === null ? "" : ` · agent's value (p0's view) ${state.value.toFixed(3)}`;
    status.textContent = `ply ${position.ply} · ${position.to_move} to move${value}`;
    result.textContent = position.result ? `Game over: ${position.result}` : "";
    if (position.terminal || position.to_move !== state.human) return;
    for (const move of position.legal) {
      legal.append(el("button", { class: "legal-move", "data-move": move, onclick: () => play(move) }, move));
    }
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
      const reply = await api("/api/agent-move", { game: state.game, moves: state.moves, agent: state.agent });
      state.value = reply.value_p0;
      render(reply.position);
    } finally { busy = false; }
  };
  const guard = (action) => async () => {
    if (busy) return;
    showError("");
    try { await action(); } catch (e) { showError(e.message); }
  };
  const play = (move) => guard(async () => { state.moves = state.moves.concat([move]); try { await refresh(); } catch (e) { state.moves.pop(); throw e; } })();
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
    state.game = gameSelect.value; state.agent = agentInput.value.trim(); state.human = sideSelect.value;
    state.moves = []; state.value = null;
    await refresh();
  });
  view.replaceChildren(el("h1", {}, "Play"),
    el("div", { class: "controls" }, gameSelect, "against", agentInput, sideSelect,
      el("button", { id: "new-game", onclick: restart }, "New game"), el("button", { id: "undo", onclick: undo }, "Undo")),
    picture, status, result, legal,
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
    if (parts[0] === "run" && parts[2] === "game") await gameViewer(parts[1], Number(parts[3]));
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
