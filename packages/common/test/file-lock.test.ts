// One process per state file: a second owner is refused with a message naming the first, and an owner that is gone
// (crashed, killed, or a restart that got the same pid) is taken over.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileInUseError, lockFile } from "../src/file-lock.ts";

const REMEDY = "Give each one its own file";

/** The kernel's start time of a process (field 22 of /proc/<pid>/stat). */
function startedOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
}

/** A node process that sleeps until killed. */
async function sleeper(): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  return {
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.kill();
      }),
  };
}

describe("lockFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "file-lock-"));
  let files = 0;
  const fresh = () => join(dir, `state-${files++}.json`);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a second owner in the same process, naming the first, and takes the file again once released", () => {
    const path = fresh();
    const lock = lockFile(path, "state file", REMEDY);
    assert.throws(
      () => lockFile(path, "state file", REMEDY),
      (error: unknown) =>
        error instanceof FileInUseError &&
        error.message.includes(`state file ${path} is in use by process ${process.pid} (${path}.lock)`) &&
        error.message.includes(REMEDY),
    );
    lock.release();
    lock.release();
    lockFile(path, "state file", REMEDY).release();
  });

  it("refuses a file held by another live process, and takes it over once that process is gone", async () => {
    const path = fresh();
    const other = await sleeper();
    const owner = { pid: other.pid, host: hostname(), started: startedOf(other.pid) };
    writeFileSync(`${path}.lock`, JSON.stringify(owner));
    assert.throws(() => lockFile(path, "state file", REMEDY), new RegExp(`in use by process ${other.pid} `));
    await other.stop();
    const lock = lockFile(path, "state file", REMEDY);
    assert.equal(JSON.parse(readFileSync(`${path}.lock`, "utf8")).pid, process.pid);
    lock.release();
  });

  it("takes over a lock whose pid now runs another process (another start time)", async () => {
    const path = fresh();
    const other = await sleeper();
    try {
      writeFileSync(`${path}.lock`, JSON.stringify({ pid: other.pid, host: hostname(), started: "1" }));
      lockFile(path, "state file", REMEDY).release();
    } finally {
      await other.stop();
    }
  });

  it("takes over a lock naming this process's pid that this process does not hold (a restart with the same pid)", () => {
    const path = fresh();
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), started: "1" }));
    lockFile(path, "state file", REMEDY).release();
  });

  it("refuses a lock from another host, which cannot be checked from here", () => {
    const path = fresh();
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, host: "elsewhere.example" }));
    assert.throws(() => lockFile(path, "state file", REMEDY), /in use by process 1 on elsewhere\.example .*remove/);
  });

  it("takes over a lock file that names no owner (empty, torn, not JSON, wrong types)", () => {
    for (const text of ["", '{"pid":', "garbage", '{"pid":"1","host":3}', "null", '{"pid":-4,"host":"h"}']) {
      const path = fresh();
      writeFileSync(`${path}.lock`, text);
      lockFile(path, "state file", REMEDY).release();
    }
  });

  it("lets a process that cannot write in the file's folder start (it cannot overwrite anything there)", () => {
    const path = join(dir, "missing-folder", "state.json");
    const lock = lockFile(path, "state file", REMEDY);
    assert.equal(existsSync(`${path}.lock`), false);
    lock.release();
    // Not held: the same process may take it again, as another could.
    lockFile(path, "state file", REMEDY).release();
  });

  it("never follows a link planted as the lock file: the link is replaced, its target left alone", () => {
    const path = fresh();
    const target = join(dir, "precious");
    writeFileSync(target, "keep me");
    symlinkSync(target, `${path}.lock`);
    const lock = lockFile(path, "state file", REMEDY);
    assert.equal(readFileSync(target, "utf8"), "keep me");
    lock.release();
    assert.equal(readFileSync(target, "utf8"), "keep me");
  });
});
