#!/usr/bin/env node
// Runs the compiled service: dist/bundle/launch.cjs (scripts/build.mjs), which runs the command line from its bundle
// with V8's code cache. CommonJS, so that Node never starts its ES module loader. In a checkout, `npm start`,
// `npm test` and `npm run build` build src/ into dist/.
// `--version` alone is answered here, with the line the command line prints for it, without loading the command line
// (commander) and its bundle: it then starts about as fast as bare node.
"use strict";
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { version } = JSON.parse(readFileSync(join(__dirname, "../package.json"), "utf8"));
  process.stdout.write(`${version}\n`);
} else {
  const entry = join(__dirname, "../dist/bundle/launch.cjs");
  if (!existsSync(entry)) {
    process.stderr.write("switchboard-gateway: dist/ is missing; run `npm run build` in the repository first\n");
    process.exit(1);
  }
  require(entry);
}
