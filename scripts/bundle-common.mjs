// `npm pack` of a service ships @switchboard/common inside it (bundleDependencies), so that the packed service
// installs and runs alone: npm bundles only a real folder in the package's own node_modules, never the workspace
// link, so `in` (prepack) copies the built common package there and `out` (postpack) removes the copy again.
//   node scripts/bundle-common.mjs in|out   (run in the service's folder)
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { root } from "./ensure-deps.mjs";

const target = join(process.cwd(), "node_modules", "@switchboard", "common");
const source = join(root, "packages", "common");

if (process.argv[2] === "in") {
  rmSync(target, { recursive: true, force: true });
  for (const entry of ["package.json", "dist"]) cpSync(join(source, entry), join(target, entry), { recursive: true });
} else if (process.argv[2] === "out") {
  rmSync(target, { recursive: true, force: true });
} else {
  console.error("usage: node scripts/bundle-common.mjs in|out");
  process.exit(2);
}
