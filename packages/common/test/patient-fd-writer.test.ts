import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";

const module = new URL("../src/patient-fd-writer.ts", import.meta.url).href;
/** About 2 MB of numbered lines: far more than a pipe holds (64 KiB on Linux). */
const LINES = 20_000;

/**
 * Runs `ending` in a child that writes LINES numbered lines to its stdout pipe through a PatientFdWriter, with
 * process.stdout looked at first (which makes the pipe non-blocking). The parent reads nothing until the child says
 * on stderr that its event loop ran a timer after the writes; resolves with whether it did, the lines read and the
 * exit code.
 */
async function writeBehindASlowReader(ending: string): Promise<{ timerRan: boolean; lines: string[]; code: number }> {
  const script = [
    `const { PatientFdWriter } = await import(${JSON.stringify(module)});`,
    "process.stdout.isTTY;",
    "const writer = new PatientFdWriter(1);",
    `for (let n = 0; n < ${LINES}; n++) writer.write(\`line \${n} ${"x".repeat(80)}\\n\`);`,
    "setTimeout(() => process.stderr.write('timer ran\\n'), 0);",
    ending,
  ].join("\n");
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.pause();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // Either the timer runs while nobody reads (patient writes), or nothing comes until the child gives up waiting.
  const timerRan = await new Promise<boolean>((resolve) => {
    const guard = setTimeout(() => resolve(false), 20_000);
    child.stderr.on("data", () => {
      if (stderr.includes("timer ran")) {
        clearTimeout(guard);
        resolve(true);
      }
    });
    child.once("exit", () => resolve(stderr.includes("timer ran")));
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdout.resume();
  const [code] = (await once(child, "close")) as [number];
  return { timerRan, lines: stdout.split("\n").filter(Boolean), code };
}

function assertAllLinesInOrder(lines: string[]): void {
  assert.equal(lines.length, LINES);
  for (let n = 0; n < LINES; n += 997) assert.ok(lines[n]!.startsWith(`line ${n} `), `line ${n}: ${lines[n]}`);
  assert.ok(lines[LINES - 1]!.startsWith(`line ${LINES - 1} `));
}

describe("PatientFdWriter", () => {
  it("keeps the event loop running while stdout's reader falls behind, and loses no line", async () => {
    // The child stays alive a moment after the timer, so its held lines are written by the retries, not at exit.
    const { timerRan, lines, code } = await writeBehindASlowReader("setTimeout(() => {}, 300);");
    assert.equal(timerRan, true, "the timer ran while the pipe was full");
    assert.equal(code, 0);
    assertAllLinesInOrder(lines);
  });

  it("writes what it holds when the process exits at once", async () => {
    const { lines, code } = await writeBehindASlowReader("setTimeout(() => process.exit(4), 0);");
    assert.equal(code, 4);
    assertAllLinesInOrder(lines);
  });
});
