// The package check before the tests: what it does on root with apt, as another user, without apt, and that
// `npm test` runs nothing when a package is missing. No test here touches the machine's packages.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ensureSystemPackages } from "./ensure-system-packages.mjs";

const PACKAGES = [
  { name: "ngircd", command: "ngircd", why: "IRC" },
  { name: "prometheus", command: "promtool", why: "metrics" },
  { name: "redis-server", command: "redis-server", why: "state" },
];

/** A machine with the given packages installed; records what the check asked of it. */
function fakeMachine({ installed = [], isRoot = true, hasApt = true, installSucceeds = true } = {}) {
  const machine = {
    hasApt,
    isRoot,
    installs: [],
    lines: [],
    installed: () => new Set(installed),
    install: (names) => {
      machine.installs.push(names);
      return installSucceeds;
    },
    report: (line) => machine.lines.push(line),
  };
  return machine;
}

describe("ensureSystemPackages", () => {
  it("does nothing when every package is installed", () => {
    const machine = fakeMachine({ installed: ["ngircd", "prometheus", "redis-server"] });
    assert.equal(ensureSystemPackages(PACKAGES, machine), true);
    assert.deepEqual(machine.installs, []);
    assert.deepEqual(machine.lines, []);
  });

  it("as root with apt-get, installs only the missing packages, in one go", () => {
    const machine = fakeMachine({ installed: ["prometheus"] });
    assert.equal(ensureSystemPackages(PACKAGES, machine), true);
    assert.deepEqual(machine.installs, [["ngircd", "redis-server"]]);
  });

  it("as root, when apt-get fails, says so in one line with the command", () => {
    const machine = fakeMachine({ installSucceeds: false });
    assert.equal(ensureSystemPackages(PACKAGES, machine), false);
    assert.match(machine.lines.at(-1), /apt-get could not install ngircd, prometheus, redis-server/);
    assert.match(machine.lines.at(-1), /apt-get install -y --no-install-recommends ngircd prometheus redis-server$/);
  });

  it("as another user, installs nothing and names the packages and the sudo command in one line", () => {
    const machine = fakeMachine({ installed: ["ngircd"], isRoot: false });
    assert.equal(ensureSystemPackages(PACKAGES, machine), false);
    assert.deepEqual(machine.installs, []);
    assert.equal(machine.lines.length, 1);
    assert.match(machine.lines[0], /needs the Debian packages prometheus, redis-server, which are not installed/);
    assert.match(machine.lines[0], /sudo apt-get install -y --no-install-recommends prometheus redis-server$/);
  });

  it("without apt-get, installs nothing and names the programs and their packages in one line", () => {
    const machine = fakeMachine({ installed: ["redis-server"], hasApt: false });
    assert.equal(ensureSystemPackages(PACKAGES, machine), false);
    assert.deepEqual(machine.installs, []);
    assert.equal(machine.lines.length, 1);
    assert.match(machine.lines[0], /needs ngircd, promtool \(Debian packages ngircd, prometheus\)/);
    assert.match(machine.lines[0], /no apt-get/);
  });
});

describe("npm test with a package missing", () => {
  it("stops before installing, building or testing anything, with the one line", () => {
    // dpkg-query and apt-get are stand-ins first on PATH: nothing is installed, and apt-get fails without doing
    // anything. As root the check tries apt-get, as another user it does not; either way nothing else may run.
    const bin = mkdtempSync(join(tmpdir(), "switchboard-fake-apt-"));
    try {
      const aptLog = join(bin, "apt-get.log");
      writeProgram(bin, "dpkg-query", "exit 1");
      writeProgram(bin, "apt-get", `echo "$*" >> ${aptLog}; echo "E: stand-in apt-get" >&2; exit 100`);
      const testScript = join(dirname(fileURLToPath(import.meta.url)), "test.mjs");
      const run = spawnSync(process.execPath, [testScript], {
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
        timeout: 60_000,
      });
      assert.equal(run.status, 1, run.stderr);
      const lastLine = run.stderr.trim().split("\n").at(-1);
      assert.match(lastLine, /^switchboard: .*ngircd.*redis-server.*apt-get install -y --no-install-recommends /);
      // Nothing after the check: no npm install, no build, no type check, no test run.
      assert.doesNotMatch(run.stdout + run.stderr, /installing dependencies|build:|== /);
      if (process.getuid?.() === 0) assert.equal(readFileSync(aptLog, "utf8"), "update -qq\n");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

function writeProgram(dir, name, body) {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}
