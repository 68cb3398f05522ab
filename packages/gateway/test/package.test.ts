// The gateway as a user gets it: `npm pack`, installed into an empty folder, its bin run from there (compiled
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

describe("the packed gateway package", () => {
  let pkg: InstalledPackage;
  // Packing and installing can take minutes on a busy machine, longer than the runner's default per-test bound.
  before(
    async () => {
      pkg = await installPacked(PACKAGE_DIR, { timeoutMs: 540_000 });
    },
    { timeout: 600_000 },
  );
  after(() => pkg?.remove());

  it("ships the bin, the compiled output and the dashboard's files only, and installs no development tool", () => {
    assert.deepEqual(shippingProblems(pkg, "switchboard-gateway", ["dashboard/"]), []);
    // What the bin runs: its launcher, and the command line with V8's code cache (@switchboard/common/code-cache).
    assert.ok(pkg.files.includes("dist/bundle/launch.cjs"));
    assert.ok(pkg.files.includes("dist/bundle/program.cjs"));
  });

  it("--version runs from the installed folder", async () => {
    const run = await runToExit({ command: pkg.bin("switchboard-gateway"), args: ["--version"], cwd: pkg.dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), version);
  });

  it("serves from the installed folder (/health), and stops on SIGTERM with exit 0", async (t) => {
    const config = join(pkg.dir, "gateway.toml");
    const cacheDir = join(pkg.dir, "cache");
    writeFileSync(
      config,
      '[server]\nport = 0\n[[backends]]\nname = "nowhere"\nurl = "http://127.0.0.1:9"\ntype = "ollama"\n',
    );
    const gateway = await startProcess(
      {
        command: pkg.bin("switchboard-gateway"),
        args: ["serve", "-c", config],
        cwd: pkg.dir,
        env: { ...process.env, NODE_COMPILE_CACHE: cacheDir, NODE_DISABLE_COMPILE_CACHE: "" },
        ready: { line: "listening on" },
        name: "installed gateway",
        timeoutMs: 20_000,
      },
      t,
    );
    const url = /listening on (http:\/\/[\d.]+:\d+)/.exec(gateway.output)?.[1];
    // Its one backend is down, so it answers, unhealthy.
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 503);
    assert.equal(((await health.json()) as { version: string }).version, version);
    // The dashboard's files ship in the package.
    const page = await fetch(`${url}/`);
    assert.match(await page.text(), /\/dashboard\/app\.js/);
    assert.equal((await fetch(`${url}/dashboard/app.js`)).status, 200);
    const exit = await gateway.stop(10_000);
    assert.equal(exit.code, 0, gateway.output);
    // It ran the installed bundle, and left the code cache for the next start.
    assert.equal(readdirSync(join(cacheDir, "switchboard-v8")).filter((name) => name.endsWith(".v8")).length, 1);
  });
});
