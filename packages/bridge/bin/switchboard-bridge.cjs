#!/usr/bin/env node
// Runs the compiled service: dist/bundle/launch.cjs (scripts/build.mjs), which reads the command line and runs the
// bridge from its bundle with V8's code cache. CommonJS, so that Node never starts its ES module loader. In a
// checkout, `npm start`, `npm test` and `npm run build` build src/ into dist/.
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const entry = join(__dirname, "../dist/bundle/launch.cjs");
if (!existsSync(entry)) {
  process.stderr.write("switchboard-bridge: dist/ is missing; run `npm run build` in the repository first\n");
  process.exit(1);
}
require(entry);
