// `npm run bench [name...] [-- flags]`: runs bench/<name>/main.ts for each named benchmark, or every benchmark there
// is. Everything from the first argument that starts with "-" on is passed to each benchmark unchanged.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(here, entry.name, "main.ts")))
  .map((entry) => entry.name);
const args = process.argv.slice(2);
const firstFlag = args.findIndex((arg) => arg.startsWith("-"));
const chosen = firstFlag === -1 ? args : args.slice(0, firstFlag);
const flags = firstFlag === -1 ? [] : args.slice(firstFlag);
const unknown = chosen.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark: ${unknown.join(", ")}; available: ${available.join(", ") || "none yet"}`);
  process.exit(2);
}
if (available.length === 0) console.log("no benchmark exists yet");
for (const name of chosen.length > 0 ? chosen : available) {
  console.log(`\n== bench/${name}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", join(here, name, "main.ts"), ...flags], {
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
