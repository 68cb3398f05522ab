// The bridge as a user gets it: `npm pack`, installed into an empty folder, its bin run from there (compiled
// JavaScript, production dependencies only).
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runToExit, startProcess } from "@switchboard/testkit";
import { type InstalledPackage, installPacked, shippingProblems } from "@switchboard/testkit/pack-install";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const { version } = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string };

describe("the packed bridge package", () => {
  let pkg: InstalledPackage;
  // npm install builds better-sqlite3's native module from source here (no prebuilt download): minutes on a busy
  // machine, longer than the runner's default per-test bound.
  before(
    async () => {
      pkg = await installPacked(PACKAGE_DIR, { timeoutMs: 540_000 });
    },
    { timeout: 600_000 },
  );
  after(() => pkg?.remove());

  it("ships the bin and the compiled output only (no TypeScript, no tests) and installs no development tool", () => {
    assert.deepEqual(shippingProblems(pkg, "switchboard-bridge"), []);
    // What the bin runs with V8's code cache (@switchboard/common/code-cache).
    assert.ok(pkg.files.includes("dist/bundle/run.cjs"));
  });

  it("-version runs from the installed folder", async () => {
    const run = await runToExit({ command: pkg.bin("switchboard-bridge"), args: ["-version"], cwd: pkg.dir });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^switchboard-bridge version ${version.replaceAll(".", "\\.")} `));
  });

  it("serves its API from the installed folder, and stops on SIGTERM with exit 0", async (t) => {
    const cacheDir = join(pkg.dir, "cache");
    writeFileSync(
      join(pkg.dir, "matterbridge.toml"),
      '[api.a]\nBindAddress = "127.0.0.1:0"\n[[gateway]]\nname = "g"\nenable = true\n' +
        '[[gateway.inout]]\naccount = "api.a"\nchannel = "api"\n',
    );
    const bridge = await startProcess(
      {
        command: pkg.bin("switchboard-bridge"),
        cwd: pkg.dir,
        env: { ...process.env, NODE_COMPILE_CACHE: cacheDir, NODE_DISABLE_COMPILE_CACHE: "" },
        ready: { line: "bridge started" },
        name: "installed bridge",
        timeoutMs: 20_000,
      },
      t,
    );
    const url = /api\.a listening on (http:\/\/[\d.]+:\d+)/.exec(bridge.output)?.[1];
    assert.equal((await fetch(`${url}/api/health`)).status, 200);
    const exit = await bridge.stop(10_000);
    assert.equal(exit.code, 0, bridge.output);
    // It ran the installed bundle, and left the code cache for the next start.
    assert.equal(readdirSync(join(cacheDir, "switchboard-v8")).filter((name) => name.endsWith(".v8")).length, 1);
  });
});
