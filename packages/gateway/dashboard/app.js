// The gateway's live dashboard: a snapshot over the WebSocket on connect, then batched events. Plain modules, no
// build step, no dependencies. Everything shown is text content (never innerHTML), so names cannot inject markup.
const SOCKET_PATH = "/v1/dashboard/socket";
const MAX_LOG_ROWS = 200;
const CHART_SECONDS = 60;

const $ = (id) => document.getElementById(id);
const state = {
  backends: [],
  totals: {},
  budget: null,
  queueDepth: 0,
  operations: new Map(),
  seconds: new Map(),
  keys: new Map(),
};

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "className") node.className = value;
    else node.setAttribute(name, String(value));
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function renderTotals() {
  const totals = state.totals;
  $("total-completed").textContent = totals.completed ?? 0;
  $("total-succeeded").textContent = totals.succeeded ?? 0;
  $("total-errors").textContent = totals.errors ?? 0;
  $("total-rejected").textContent = totals.rejected ?? 0;
  $("queue-depth").textContent = state.queueDepth;
  const budget = state.budget;
  $("budget").textContent = budget
    ? `$${Number(budget.current_spending_usd).toFixed(2)}${budget.monthly_limit_usd ? ` / $${budget.monthly_limit_usd}` : ""} (${budget.status})`
    : "none";
}

function renderBackends() {
  const cards = state.backends.map((backend) =>
    element(
      "article",
      { className: "card", "data-status": backend.status, "data-backend": backend.name },
      element("h3", {}, backend.name, element("span", { className: "status" }, backend.status)),
      element("p", {}, `${backend.type} · ${backend.kind} · zone ${backend.zone} · tier ${backend.tier}`),
      element(
        "p",
        {},
        `in flight ${backend.in_flight}${backend.max_concurrent ? ` / ${backend.max_concurrent}` : ""} · probe ${
          backend.probe_latency_ms === null ? "–" : `${backend.probe_latency_ms} ms`
        }`,
      ),
      element("p", { className: "muted" }, backend.models.join(", ") || "no models"),
      backend.last_error && backend.status !== "healthy"
        ? element("p", { className: "muted" }, backend.last_error)
        : "",
    ),
  );
  $("backends").replaceChildren(...cards);
  const healthy = state.backends.filter((backend) => backend.status === "healthy").length;
  $("backend-count").textContent = `(${healthy} of ${state.backends.length} healthy)`;
  renderMatrix();
}

function renderMatrix() {
  const models = [...new Set(state.backends.flatMap((backend) => backend.models))].sort();
  const head = element("tr", {}, element("th", { scope: "col" }, "model"));
  for (const backend of state.backends) head.append(element("th", { scope: "col" }, backend.name));
  const rows = models.map((model) => {
    const row = element("tr", {}, element("th", { scope: "row" }, model));
    for (const backend of state.backends) {
      const has = backend.models.includes(model);
      const healthy = backend.status === "healthy";
      row.append(element("td", { className: has ? (healthy ? "yes" : "down") : "" }, has ? (healthy ? "●" : "○") : ""));
    }
    return row;
  });
  $("matrix").replaceChildren(element("thead", {}, head), element("tbody", {}, ...rows));
}

function renderOperations() {
  const items = [...state.operations.values()]
    .filter((operation) => operation.status === "pending" || operation.status === "running")
    .map((operation) =>
      element(
        "li",
        {},
        `${operation.type} ${operation.model} on ${operation.backend} — ${operation.detail ?? operation.status} `,
        operation.progress === undefined || operation.progress === null
          ? ""
          : element("progress", { max: 1, value: operation.progress }),
      ),
    );
  $("operations").replaceChildren(...(items.length ? items : [element("li", { className: "empty" }, "none running")]));
}

function logRow(request) {
  const tokens =
    request.prompt_tokens === null && request.completion_tokens === null
      ? "–"
      : `${request.prompt_tokens ?? 0}+${request.completion_tokens ?? 0}`;
  return element(
    "tr",
    { "data-outcome": request.outcome, "data-request-id": request.request_id },
    element("td", {}, new Date(request.finished_at).toLocaleTimeString()),
    element("td", {}, request.model),
    element("td", {}, request.backend ?? "–"),
    element("td", {}, request.route_reason ?? "–"),
    element("td", {}, request.key ?? "–"),
    element("td", { className: "num" }, request.status),
    element("td", { className: "num" }, Math.round(request.duration_ms)),
    element("td", { className: "num" }, tokens),
  );
}

function addRequests(requests) {
  const body = $("log").tBodies[0];
  for (const request of requests) {
    body.prepend(logRow(request));
    const second = Math.floor(Date.parse(request.finished_at) / 1000);
    const bucket = state.seconds.get(second) ?? { count: 0, totalMs: 0 };
    bucket.count++;
    bucket.totalMs += request.duration_ms;
    state.seconds.set(second, bucket);
  }
  while (body.rows.length > MAX_LOG_ROWS) body.lastElementChild.remove();
  drawCharts();
}

/** The keys table (shown once a request came with a virtual key): requests and tokens per key, busiest first. */
function renderKeys() {
  const rows = [...state.keys.values()].sort((a, b) => b.requests - a.requests);
  $("keys-section").hidden = rows.length === 0;
  $("keys").tBodies[0].replaceChildren(
    ...rows.map((row) =>
      element(
        "tr",
        { "data-key": row.key },
        element("td", {}, row.key),
        element("td", { className: "num" }, row.requests),
        element("td", { className: "num" }, row.prompt_tokens),
        element("td", { className: "num" }, row.completion_tokens),
      ),
    ),
  );
}

function countKey(request) {
  if (request.key === null || request.key === undefined) return;
  const row = state.keys.get(request.key) ?? { key: request.key, requests: 0, prompt_tokens: 0, completion_tokens: 0 };
  row.requests++;
  row.prompt_tokens += request.prompt_tokens ?? 0;
  row.completion_tokens += request.completion_tokens ?? 0;
  state.keys.set(request.key, row);
}

function countRequest(request) {
  countKey(request);
  const totals = state.totals;
  totals.completed = (totals.completed ?? 0) + 1;
  const key = { ok: "succeeded", error: "errors", rejected: "rejected" }[request.outcome];
  if (key) totals[key] = (totals[key] ?? 0) + 1;
}

function drawChart(canvas, values, color) {
  const context = canvas.getContext("2d");
  const { width, height } = canvas;
  context.clearRect(0, 0, width, height);
  const max = Math.max(1, ...values);
  const step = width / values.length;
  context.fillStyle = color;
  values.forEach((value, index) => {
    const barHeight = (value / max) * (height - 14);
    context.fillRect(index * step, height - barHeight, Math.max(1, step - 1), barHeight);
  });
  context.fillStyle = getComputedStyle(document.body).color;
  context.font = "11px system-ui";
  context.fillText(`max ${Math.round(max * 10) / 10}`, 4, 11);
}

function drawCharts() {
  const now = Math.floor(Date.now() / 1000);
  const rate = [];
  const latency = [];
  for (let second = now - CHART_SECONDS + 1; second <= now; second++) {
    const bucket = state.seconds.get(second);
    rate.push(bucket?.count ?? 0);
    latency.push(bucket ? bucket.totalMs / bucket.count : 0);
  }
  for (const second of state.seconds.keys()) if (second <= now - CHART_SECONDS) state.seconds.delete(second);
  drawChart($("rate-chart"), rate, "#2f6fd6");
  drawChart($("latency-chart"), latency, "#b26b00");
}

function applySnapshot(message) {
  $("version").textContent = message.version;
  state.backends = message.backends;
  state.totals = { ...message.stats.requests };
  state.queueDepth = message.stats.queue.depth;
  state.budget = message.budget;
  state.operations = new Map(message.operations.map((operation) => [operation.id, operation]));
  state.keys = new Map((message.keys ?? []).map((row) => [row.key, { ...row }]));
  state.seconds.clear();
  $("log").tBodies[0].replaceChildren();
  addRequests([...message.requests].reverse());
  renderBackends();
  renderOperations();
  renderKeys();
  renderTotals();
}

function applyEvents(events) {
  const requests = [];
  let fleetChanged = false;
  for (const event of events) {
    if (event.type === "request") {
      requests.push(event.request);
      countRequest(event.request);
    } else if (event.type === "backend_health") {
      const backend = state.backends.find((candidate) => candidate.name === event.backend);
      if (backend) backend.status = event.to;
      fleetChanged = true;
    } else if (event.type === "operation") {
      state.operations.set(event.operation.id, event.operation);
      renderOperations();
    }
  }
  if (requests.length) {
    addRequests(requests);
    renderKeys();
  }
  if (fleetChanged) renderBackends();
  renderTotals();
}

function applyFleet(message) {
  state.backends = message.backends;
  state.queueDepth = message.queue_depth;
  state.budget = message.budget;
  renderBackends();
  renderTotals();
}

function setConnection(text, mode) {
  const status = $("connection");
  status.textContent = text;
  status.dataset.state = mode;
}

let attempt = 0;
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${SOCKET_PATH}`);
  socket.addEventListener("message", (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "snapshot") {
      attempt = 0;
      setConnection("live", "live");
      applySnapshot(data);
    } else if (data.type === "events") applyEvents(data.events);
    else if (data.type === "fleet") applyFleet(data);
  });
  socket.addEventListener("close", () => {
    // Exponential backoff with jitter, capped at 30 s.
    const delay = Math.min(30_000, 500 * 2 ** attempt++) * (0.5 + Math.random() / 2);
    setConnection(`reconnecting in ${Math.round(delay / 1000)} s…`, "reconnecting");
    setTimeout(connect, delay);
  });
}

connect();
setInterval(drawCharts, 1000);
