// Installs the workspace's dependencies when they are missing or older than package-lock.json,
// so that `npm start` and `npm test` work on a fresh clone. Uses only Node built-ins: it runs before anything is installed.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
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

/**
 * Native addons are compiled for one Node ABI, and CI runs `npm test` on Node 20 and then on Node 24 with the same
 * node_modules: when better-sqlite3 (the bridge's state file) was built for another Node, it is rebuilt for this one,
 * against this Node's own headers (its install folder's include/; no download).
 */
export function ensureNativeAddons() {
  const probe = spawnSync(process.execPath, ["-e", "new (require('better-sqlite3'))(':memory:').close()"], {
    cwd: root,
    encoding: "utf8",
  });
  if (probe.status === 0 || !/NODE_MODULE_VERSION|compiled against a different Node/.test(probe.stderr)) return;
  console.error(`switchboard: rebuilding better-sqlite3 for Node ${process.version} (it was built for another one)...`);
  const env = {
    ...process.env,
    npm_config_nodedir: resolve(dirname(process.execPath), ".."),
    npm_config_build_from_source: "true",
  };
  const result = spawnSync("npm", ["rebuild", "better-sqlite3"], { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) {
    console.error(
      `switchboard: npm rebuild better-sqlite3 failed (exit ${result.status}); fix the error above and run again.`,
    );
    process.exit(result.status ?? 1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ensureDependencies();
  ensureNativeAddons();
}
