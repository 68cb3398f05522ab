#!/usr/bin/env node
// Runs the compiled service: its bundle in dist/bundle/ (scripts/build.mjs). In a checkout, `npm start`, `npm test`
// and `npm run build` build src/ into dist/.
import { existsSync } from "node:fs";

const entry = new URL("../dist/bundle/cli.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("switchboard-bridge: dist/ is missing; run `npm run build` in the repository first\n");
  process.exit(1);
}
await import(entry.href);
