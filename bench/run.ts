// `npm run bench [name...]`: runs bench/<name>/main.ts for each named benchmark, or every benchmark there is.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(here, entry.name, "main.ts")))
  .map((entry) => entry.name);
const chosen = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
const unknown = chosen.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark: ${unknown.join(", ")}; available: ${available.join(", ") || "none yet"}`);
  process.exit(2);
}
if (available.length === 0) console.log("no benchmark exists yet");
for (const name of chosen.length > 0 ? chosen : available) {
  console.log(`\n== bench/${name}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", join(here, name, "main.ts")], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
