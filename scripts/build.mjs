// Compiles each service's src/ into its dist/, which is what the bins run.
//   node scripts/build.mjs [--if-stale] [bridge|gateway]...
// tsc only emits here (tsconfig.build.json: noCheck, noResolve): type checking is `npm test`'s and `npm run check`'s
// job, and emitting alone takes about a second per package instead of ten. Files under src/ that are not TypeScript
// (a page, a stylesheet, a JSON table) are copied beside the output, so a new file needs no change here. Test files
// (*.test.*) are never shipped. A build starts from an empty dist/, so a source file deleted or renamed does not
// leave its old output behind.
// `--if-stale` builds only a package whose dist/ is missing or older than anything under its src/ (files and
// folders: a folder's mtime changes when an entry is added, removed or renamed) or its build config.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { root } from "./ensure-deps.mjs";

/** common first in the list: the services import it (each package compiles alone, so they build side by side). */
export const BUILT_PACKAGES = ["common", "bridge", "gateway"];
const STAMP = ".build-stamp";

const packageDir = (name) => join(root, "packages", name);

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Whether dist/ is missing or older than the sources and the build configs it was compiled from. */
export function isStale(name) {
  const stamp = join(packageDir(name), "dist", STAMP);
  if (!existsSync(stamp)) return true;
  const inputs = [
    join(packageDir(name), "src"),
    join(packageDir(name), "tsconfig.build.json"),
    join(root, "tsconfig.json"),
  ];
  return Math.max(...inputs.map(newestMtime)) > statSync(stamp).mtimeMs;
}

const isTest = (file) => /\.test\.[^.]+$/.test(file);

function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, join(to, entry.name));
    else if (!entry.name.endsWith(".ts") && !isTest(entry.name)) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, join(to, entry.name));
    }
  }
}

function runTsc(name) {
  const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
  const child = spawn(process.execPath, [tsc, "-p", join(packageDir(name), "tsconfig.build.json")], {
    cwd: root,
    stdio: "inherit",
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
}

/** Builds one package from scratch; resolves to whether tsc succeeded. */
export async function build(name) {
  // The stamp gets the build's start time: a source saved while tsc runs makes the next check rebuild.
  const started = new Date();
  const dist = join(packageDir(name), "dist");
  rmSync(dist, { recursive: true, force: true });
  const status = await runTsc(name);
  if (status !== 0) {
    console.error(`build: tsc failed for ${name} (${status})`);
    return false;
  }
  copyAssets(join(packageDir(name), "src"), dist);
  writeFileSync(join(dist, STAMP), "");
  utimesSync(join(dist, STAMP), started, started);
  return true;
}

/** Builds the named packages (all by default), or with `ifStale` only those whose dist/ is stale. Exits on failure. */
export async function buildPackages({ names = BUILT_PACKAGES, ifStale = false } = {}) {
  const todo = ifStale ? names.filter(isStale) : names;
  if (todo.length === 0) return;
  const startedAt = Date.now();
  const results = await Promise.all(todo.map(build));
  if (results.includes(false)) process.exit(1);
  const where = todo.map((name) => relative(root, join(packageDir(name), "dist"))).join(", ");
  console.error(`build: ${where} (${Date.now() - startedAt} ms)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const names = args.filter((arg) => !arg.startsWith("--"));
  const unknown = names.filter((name) => !BUILT_PACKAGES.includes(name));
  if (unknown.length > 0) {
    console.error(`build: unknown package ${unknown.join(", ")}; known: ${BUILT_PACKAGES.join(", ")}`);
    process.exit(2);
  }
  await buildPackages({ names: names.length > 0 ? names : BUILT_PACKAGES, ifStale: args.includes("--if-stale") });
}
