// streamdb dashboard: polls /api/v1/ and redraws. Plain JavaScript, no
// build step. Elements tests read carry data attributes: data-node,
// data-job, data-vnode/data-actor/data-owner-node, data-rescale.
"use strict";

// POLL_MS is how often the page polls: 700 ms, or ?poll=ms (at least 50).
const POLL_MS = Math.max(50, Number(new URLSearchParams(location.search).get("poll")) || 700);
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// actorColor gives each actor slot a distinct hue (golden angle).
const actorColor = (a) => `hsl(${(215 + a * 137.508) % 360}, 62%, 55%)`;

async function get(path) {
  const r = await fetch("/api/v1/" + path, { cache: "no-store" });
  if (!r.ok) throw new Error(path + ": " + r.status);
  return r.json();
}

function ago(t) {
  if (!t) return "";
  const s = (Date.now() - Date.parse(t)) / 1000;
  return s < 1 ? "now" : s.toFixed(0) + " s ago";
}

function drawNodes(nodes) {
  $("nodes").tBodies[0].innerHTML = nodes.map((n) =>
    `<tr data-node="${esc(n.id)}"><td><b>${esc(n.id)}</b></td><td>${esc(n.role)}</td>` +
    `<td><span class="pill ${esc(n.state)}">${esc(n.state)}</span></td><td>${n.cores}</td><td>${n.actors}</td>` +
    `<td>${n.vnodes}</td><td>${esc(n.pg_addr)}</td><td>${esc(n.cluster_addr)}</td><td>${ago(n.last_heartbeat)}</td></tr>`).join("");
}

// sparkline draws series (arrays of numbers, same length) into svg.
function sparkline(svg, series, colors) {
  const W = 400, H = 90, pad = 4;
  const top = Math.max(1e-9, ...series.flat());
  const n = Math.max(2, ...series.map((s) => s.length));
  svg.innerHTML = series.map((s, k) => {
    const pts = s.map((v, i) => `${(W * i / (n - 1)).toFixed(1)},${(H - pad - (H - 2 * pad) * v / top).toFixed(1)}`).join(" ");
    return `<polyline fill="none" stroke="${colors[k]}" stroke-width="1.5" vector-effect="non-scaling-stroke" points="${pts}"/>`;
  }).join("");
}

function drawSeries(ts) {
  const s = ts.samples;
  sparkline($("latency"), [s.map((x) => x.p50_ms), s.map((x) => x.p99_ms)], ["#3b6ef5", "#e0782b"]);
  sparkline($("throughput"), [s.map((x) => x.rows_per_s)], ["#2b9e5a"]);
  const last = s[s.length - 1];
  if (!last) return;
  $("latency-now").innerHTML = `<b style="color:#3b6ef5">p50 ${last.p50_ms.toFixed(1)}</b> · <b style="color:#e0782b">p99 ${last.p99_ms.toFixed(1)}</b> ms · ${last.barriers} barriers/s · ${s.length} s shown`;
  $("throughput-now").innerHTML = `<b style="color:#2b9e5a">${Math.round(last.rows_per_s).toLocaleString()}</b> rows/s`;
}

function drawRescales(rs) {
  if (!rs.length) return;
  $("rescales").innerHTML = rs.map((r) => {
    const pct = r.vnodes_total ? 100 * r.vnodes_moved / r.vnodes_total : (r.phase === "done" ? 100 : 0);
    return `<div class="rescale" data-rescale="${r.job}" data-phase="${esc(r.phase)}" data-moved="${r.vnodes_moved}" data-total="${r.vnodes_total}">` +
      `<div><b>${esc(r.name)}</b> ${r.from} → ${r.to} <span class="pill ${esc(r.phase)}">${esc(r.phase)}</span></div>` +
      `<div class="bar"><div style="width:${pct.toFixed(1)}%"></div></div>` +
      `<div class="muted">${r.vnodes_moved}/${r.vnodes_total} vnodes · step ${r.steps_done}/${r.steps_total} · ${esc(r.strategy)} · ${(r.elapsed_ms / 1000).toFixed(1)} s${r.error ? " · " + esc(r.error) : ""}</div></div>`;
  }).join("");
}

// graph lays a job's fragments out left to right by depth, inputs from
// other jobs in the first column, and draws edges between them.
function graph(job) {
  const boxes = new Map(); // key -> {col, label, sub, ext}
  const key = (j, f) => j + "/" + f;
  const depth = new Map();
  const depthOf = (f, seen = new Set()) => {
    if (depth.has(f.id)) return depth.get(f.id);
    if (seen.has(f.id)) return 1;
    seen.add(f.id);
    let d = 0;
    for (const u of f.upstream) {
      const uf = u.job === job.id && job.fragments.find((x) => x.id === u.fragment);
      d = Math.max(d, uf ? depthOf(uf, seen) + 1 : 1);
    }
    depth.set(f.id, d);
    return d;
  };
  const edges = [];
  for (const f of job.fragments) {
    boxes.set(key(job.id, f.id), { col: depthOf(f), label: "fragment " + f.id, sub: f.actors.length + (f.actors.length === 1 ? " actor" : " actors") });
    for (const u of f.upstream) {
      if (u.job !== job.id && !boxes.has(key(u.job, u.fragment))) boxes.set(key(u.job, u.fragment), { col: 0, label: u.name || "job " + u.job, sub: "fragment " + u.fragment, ext: true });
      edges.push([key(u.job, u.fragment), key(job.id, f.id), u.dist]);
    }
  }
  const cols = new Map();
  for (const [k, b] of boxes) { b.row = (cols.get(b.col) || 0); cols.set(b.col, b.row + 1); }
  const BW = 120, BH = 38, GX = 50, GY = 12;
  const maxCol = Math.max(0, ...[...boxes.values()].map((b) => b.col));
  const maxRow = Math.max(1, ...cols.values());
  const W = (maxCol + 1) * (BW + GX), H = maxRow * (BH + GY);
  const pos = (b) => [b.col * (BW + GX) + 2, b.row * (BH + GY) + 2];
  let svg = `<svg viewBox="0 0 ${W} ${H + 4}" style="max-width:${W}px" data-graph="${job.id}"><defs><marker id="arr" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L8,4L0,8z" fill="#8a93a6"/></marker></defs>`;
  for (const [from, to, dist] of edges) {
    const a = boxes.get(from), b = boxes.get(to);
    if (!a || !b) continue;
    const [x1, y1] = pos(a), [x2, y2] = pos(b);
    svg += `<line x1="${x1 + BW}" y1="${y1 + BH / 2}" x2="${x2 - 2}" y2="${y2 + BH / 2}" marker-end="url(#arr)"><title>${esc(dist)}</title></line>`;
  }
  for (const [k, b] of boxes) {
    const [x, y] = pos(b);
    svg += `<g data-fragment="${esc(k)}"><rect x="${x}" y="${y}" width="${BW}" height="${BH}" rx="6" class="${b.ext ? "ext" : ""}"/>` +
      `<text x="${x + 8}" y="${y + 16}"><tspan font-weight="600">${esc(b.label)}</tspan></text><text x="${x + 8}" y="${y + 30}">${esc(b.sub)}</text></g>`;
  }
  return svg + "</svg>";
}

function vnodeMap(m) {
  const actors = new Map();
  const cells = m.vnodes.map((v) => {
    actors.set(v.actor, v.node);
    return `<div data-vnode="${v.vnode}" data-actor="${v.actor}" data-owner-node="${esc(v.node)}" style="background:${actorColor(v.actor)}" title="vnode ${v.vnode} · actor ${v.actor} · node ${esc(v.node)}"></div>`;
  }).join("");
  const legend = [...actors].sort((a, b) => a[0] - b[0]).map(([a, n]) => `<span><i style="background:${actorColor(a)}"></i>actor ${a} (${esc(n)})</span>`).join("");
  return `<div class="vmap" data-vmap="${m.job}">${cells}</div><div class="actors">${legend}</div>`;
}

// oneActor reports whether every fragment of job runs as one actor: its
// vnode map would be one color.
const oneActor = (job) => job.fragments.every((f) => f.actors.length <= 1);

async function drawJobs(jobs) {
  const parallel = jobs.filter((j) => j.fragments.length);
  const maps = await Promise.all(parallel.map((j) => get(`jobs/${j.id}/vnodes`).catch(() => null)));
  $("jobs").innerHTML = parallel.map((j, i) =>
    `<div class="card job" data-job="${j.id}" data-job-name="${esc(j.name)}">` +
    `<div class="job-head"><h3>${esc(j.name)}</h3><span class="muted">${esc(j.kind)} · job ${j.id} · parallelism ${j.parallelism}</span></div>` +
    `<div class="graph">${graph(j)}</div><div>${oneActor(j) ? '<p class="muted">one actor owns every vnode</p>' : maps[i] ? vnodeMap(maps[i]) : ""}</div></div>`).join("");
}

async function poll() {
  try {
    const [cluster, jobs, rescales, ts] = await Promise.all([get("cluster"), get("jobs"), get("rescales"), get("timeseries")]);
    drawNodes(cluster.nodes);
    drawRescales(rescales.rescales);
    drawSeries(ts);
    await drawJobs(jobs.jobs);
    $("status").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (e) {
    $("status").textContent = "unreachable: " + e.message;
  }
  setTimeout(poll, POLL_MS);
}
poll();
