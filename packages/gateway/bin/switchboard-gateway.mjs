#!/usr/bin/env node
// Runs the compiled service: its bundle in dist/bundle/ (scripts/build.mjs). In a checkout, `npm start`, `npm test`
// and `npm run build` build src/ into dist/.
// `--version` alone is answered here, with the line the command line prints for it, without loading the command line
// (commander) and its bundle: it then starts about as fast as bare node.
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${version}\n`);
} else {
  const entry = new URL("../dist/bundle/cli.js", import.meta.url);
  if (!existsSync(entry)) {
    process.stderr.write("switchboard-gateway: dist/ is missing; run `npm run build` in the repository first\n");
    process.exit(1);
  }
  await import(entry.href);
}
