// Summarises a V8 .cpuprofile (from `node --cpu-prof`): where the busy time went, by function and by package.
// Usage: node --import tsx bench/gateway/profile-summary.ts FILE.cpuprofile [top=25]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package (node_modules/<name>), "node:internal", "(program)/(gc)/(idle)", or the project file. */
function ownerOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module?.[1]) return module[1];
  if (url.startsWith("node:")) return "node:internal";
  const project = /\/(packages\/[^?]+)/.exec(url);
  return project?.[1] ?? url;
}

export function summarizeProfile(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const total = [...selfUs.values()].reduce((sum, us) => sum + us, 0);
  const idle = [...selfUs].reduce(
    (sum, [id, us]) => (byId.get(id)?.callFrame.functionName === "(idle)" ? sum + us : sum),
    0,
  );
  const busy = total - idle;
  const functions = new Map<string, number>();
  const owners = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === "(idle)") continue;
    const where = frame.url
      ? `${frame.url.replace(/^.*\/(node_modules|packages)\//, "$1/")}:${frame.lineNumber + 1}`
      : "";
    const key = `${frame.functionName || "(anonymous)"} ${where}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    const owner = ownerOf(frame.url, frame.functionName);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
  }
  // Inclusive time of the project's own functions and of JSON work (a function counted once per stack).
  const inclusive = new Map<string, number>();
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame || frame.functionName === "(idle)") break;
      const own = frame.url.includes("/packages/") || /^JSON|^(parse|stringify)$/.test(frame.functionName);
      if (!own) continue;
      const key = `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\/packages\//, "")}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1)} %`;
  const rows = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => `| ${pct(us)} | ${name} |`);
  return [
    `busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled`,
    "",
    "| self share of busy time | package or area |",
    "|---:|---|",
    ...rows(owners, 15),
    "",
    "| self share of busy time | function |",
    "|---:|---|",
    ...rows(functions, top),
    "",
    "| inclusive share of busy time | project function (or JSON) |",
    "|---:|---|",
    ...rows(inclusive, top),
  ].join("\n");
}

if (process.argv[1]?.endsWith("profile-summary.ts")) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: profile-summary.ts FILE.cpuprofile [top]");
    process.exit(2);
  }
  console.log(summarizeProfile(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(process.argv[3] ?? 25)));
}
