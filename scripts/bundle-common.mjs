// `npm pack` of a service ships @switchboard/common inside it (bundleDependencies), so that the packed service
// installs and runs alone: npm bundles only a real folder in the package's own node_modules, never the workspace
// link, so `in` (prepack) puts a copy of the built common package there and `out` (postpack) takes it away again.
// Both are one rename: the service's bins running meanwhile (tests) resolve @switchboard/common to that folder while
// it exists, so it must never be seen half copied or half removed.
//   node scripts/bundle-common.mjs in|out   (run in the service's folder)
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { root } from "./ensure-deps.mjs";

const target = join(process.cwd(), "node_modules", "@switchboard", "common");
const source = join(root, "packages", "common");
const aside = (why) => `${target}.${why}-${process.pid}`;

function takeAway() {
  if (!existsSync(target)) return;
  const gone = aside("gone");
  renameSync(target, gone);
  rmSync(gone, { recursive: true, force: true });
}

if (process.argv[2] === "in") {
  const staged = aside("staged");
  mkdirSync(dirname(target), { recursive: true });
  for (const entry of ["package.json", "dist"]) cpSync(join(source, entry), join(staged, entry), { recursive: true });
  takeAway();
  renameSync(staged, target);
} else if (process.argv[2] === "out") {
  takeAway();
} else {
  console.error("usage: node scripts/bundle-common.mjs in|out");
  process.exit(2);
}
