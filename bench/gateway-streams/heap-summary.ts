// Compares two V8 heap snapshots (from --heapsnapshot-signal: before a run and at its peak): objects by kind and
// constructor, what the second holds more of in count and self size, per stream. To see what one stream holds.
// Usage: node --import tsx bench/gateway-streams/heap-summary.ts BEFORE.heapsnapshot PEAK.heapsnapshot STREAMS [TOP=40]
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

type Groups = Map<string, { count: number; bytes: number }>;

/** Objects by kind ("object Socket", "closure onData", "string"...): how many and their self size. */
function groupsOf(snapshot: Snapshot): Groups {
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const groups: Groups = new Map();
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + typeAt]!] ?? "?";
    let name =
      type === "object" || type === "closure" || type === "native"
        ? (snapshot.strings[snapshot.nodes[i + nameAt]!] ?? "?")
        : "";
    if (name.length > 60) name = `${name.slice(0, 57)}...`;
    const key = `${type} ${name}`.trim();
    const bytes = snapshot.nodes[i + sizeAt]!;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += bytes;
    groups.set(key, group);
  }
  return groups;
}

function compareHeaps(before: Groups, peak: Groups, streams: number, top: number): string {
  const added = [...peak].map(([key, group]) => {
    const base = before.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: group.count - base.count, bytes: group.bytes - base.bytes };
  });
  const total = added.reduce((sum, row) => sum + row.bytes, 0);
  const lines = [
    `heap grew by ${(total / 1024 / 1024).toFixed(1)} MB: ${(total / streams / 1024).toFixed(1)} KB per stream`,
    "",
    "| kind | added | per stream | bytes per stream |",
    "|---|---:|---:|---:|",
  ];
  for (const { key, count, bytes } of added.sort((a, b) => b.bytes - a.bytes).slice(0, top)) {
    lines.push(
      `| ${key.replace(/\|/g, "\\|")} | ${count} | ${(count / streams).toFixed(2)} | ${(bytes / streams).toFixed(0)} |`,
    );
  }
  return lines.join("\n");
}

if (process.argv[4]) {
  const load = (file: string) => groupsOf(JSON.parse(readFileSync(file, "utf8")) as Snapshot);
  const [before, peak] = [load(process.argv[2]!), load(process.argv[3]!)];
  console.log(compareHeaps(before, peak, Number(process.argv[4]), Number(process.argv[5] ?? 40)));
}
