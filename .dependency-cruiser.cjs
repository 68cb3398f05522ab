// The layers of both services, checked in `npm test`'s lint step (docs/development.md draws them). A rule names what
// a folder may NOT import; a new folder that fits no rule fails `layers-are-known`, so the picture stays complete.
const GW = "^packages/gateway/src/";
const BR = "^packages/bridge/src/";

/** The gateway's folders, bottom to top; each may import its own folder and the ones before it in its list. */
const gatewayLayers = {
  request: [],
  threads: [],
  config: ["request"],
  // The state store seam (keys, rate windows, spend, stored records): used by policy, access and http, below them all.
  state: ["request", "config"],
  "telemetry/events.ts": ["request"],
  backends: ["request", "config", "threads"],
  discovery: [],
  fleet: ["request", "config", "threads", "backends", "telemetry/events.ts"],
  routing: ["request", "config", "threads", "backends", "fleet", "telemetry/events.ts"],
  policy: ["request", "config", "threads", "state", "backends", "fleet", "routing", "telemetry/events.ts"],
  // Virtual keys and their limits, decided through the state store.
  access: ["request", "config", "state"],
  dispatch: ["request", "config", "threads", "backends", "fleet", "routing", "policy", "telemetry/events.ts"],
  lifecycle: ["request", "config", "threads", "backends", "fleet", "routing", "policy", "telemetry/events.ts"],
  telemetry: ["request", "config", "threads", "backends", "fleet", "routing", "policy", "telemetry/events.ts"],
  // Inbound adapters (Anthropic Messages, OpenAI Responses, Ollama's API): between http/ and dispatch/, never http/.
  inbound: [
    "request",
    "config",
    "state",
    "threads",
    "backends",
    "fleet",
    "routing",
    "policy",
    "dispatch",
    "telemetry/events.ts",
  ],
  dashboard: ["request", "config", "backends", "fleet", "routing", "policy", "telemetry"],
  http: [
    "request",
    "config",
    "state",
    "access",
    "threads",
    "backends",
    "fleet",
    "routing",
    "policy",
    "dispatch",
    "lifecycle",
    "telemetry",
    "dashboard",
    "inbound",
  ],
};

const escapeDots = (text) => text.replace(/[.]/g, "\\.");
const folderPath = (root, name) => `${root}${escapeDots(name)}${name.endsWith(".ts") ? "$" : "/"}`;

const gatewayRules = Object.entries(gatewayLayers).map(([layer, allowed]) => ({
  name: `gateway-${layer.replace(/\W/g, "-")}`,
  comment: `gateway ${layer} may import only: ${[layer, ...allowed].join(", ")} (docs/development.md, "Layers")`,
  severity: "error",
  from: {
    path: folderPath(GW, layer),
    // telemetry/events.ts is its own layer below the rest of telemetry/.
    ...(layer === "telemetry" ? { pathNot: folderPath(GW, "telemetry/events.ts") } : {}),
  },
  to: {
    path: GW,
    pathNot: [layer, ...allowed].map((name) => folderPath(GW, name)),
  },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "Imports form no loop, in either service (type-only imports included: a loop is a loop)",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...gatewayRules,
    {
      name: "gateway-layers-are-known",
      comment: "Every gateway folder has a layer in .dependency-cruiser.cjs, so that a new folder is placed on purpose",
      severity: "error",
      from: { path: GW },
      to: {
        path: `${GW}[^/]+/`,
        pathNot: [...Object.keys(gatewayLayers), "cli"].map((name) => folderPath(GW, name)),
      },
    },
    {
      name: "gateway-only-the-top-imports-cli",
      comment: "Nothing below the command line imports it",
      severity: "error",
      from: { path: GW, pathNot: [`${GW}cli`, `${GW}[^/]+\\.ts$`] },
      to: { path: [`${GW}cli/`, `${GW}[^/]+\\.ts$`] },
    },
    {
      name: "bridge-core-imports-no-protocol",
      comment: "The core routes messages; it never names a protocol (accounts/ plug into it)",
      severity: "error",
      from: { path: `${BR}core/` },
      to: { path: `${BR}accounts/` },
    },
    {
      name: "bridge-accounts-do-not-import-each-other",
      comment: "A protocol folder imports only itself, the shared account helpers, the core and the bottom modules",
      severity: "error",
      from: { path: `${BR}accounts/([^/]+)/` },
      to: { path: `${BR}accounts/[^/]+/`, pathNot: `${BR}accounts/$1/` },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: ["^packages/(gateway|bridge)/src/"],
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
