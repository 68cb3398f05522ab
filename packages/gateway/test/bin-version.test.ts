// The bin answers `--version` itself, without loading the command line: the same line commander prints for it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../bin/switchboard-gateway.cjs", import.meta.url));
// The command line itself, as the bin runs it for anything but the version flag alone.
const CLI = fileURLToPath(new URL("../dist/bundle/launch.cjs", import.meta.url));
const run = (file: string, args: string[]) => spawnSync(process.execPath, [file, ...args], { encoding: "utf8" });

describe("switchboard-gateway --version", { skip: !existsSync(CLI) && "not built" }, () => {
  it("prints what the command line prints, the package's version", () => {
    const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    const commander = run(CLI, ["--version"]);
    assert.equal(commander.stdout, `${version}\n`);
    for (const flag of ["--version", "-V"]) {
      const bin = run(BIN, [flag]);
      assert.equal(bin.status, 0);
      assert.equal(bin.stdout, commander.stdout);
      assert.equal(bin.stderr, "");
    }
  });

  it("leaves every other use of the flag to the command line", () => {
    const withCommand = run(BIN, ["--version", "serve"]);
    assert.equal(withCommand.stdout, run(CLI, ["--version", "serve"]).stdout);
    assert.match(run(BIN, ["--help"]).stdout, /Usage: switchboard-gateway/);
  });
});
