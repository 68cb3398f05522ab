// Installs the workspace's dependencies when they are missing or older than package-lock.json,
// so that `npm start` and `npm test` work on a fresh clone. Uses only Node built-ins: it runs before anything is installed.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function installedIsCurrent() {
  const marker = join(root, "node_modules", ".package-lock.json");
  if (!existsSync(marker)) return false;
  const lock = join(root, "package-lock.json");
  return !existsSync(lock) || statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
}

export function ensureDependencies() {
  if (installedIsCurrent()) return;
  // `npm install` installs the versions package-lock.json records. Not `npm ci`: npm 11 writes lockfiles without the
  // other platforms' optional packages (biome's, esbuild's) and then `npm ci` refuses them as out of sync.
  console.error("switchboard: installing dependencies (npm install)...");
  const result = spawnSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`switchboard: npm install failed (exit ${result.status}); fix the error above and run again.`);
    process.exit(result.status ?? 1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureDependencies();
