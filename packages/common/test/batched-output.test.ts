import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { BatchedOutput } from "../src/batched-output.ts";

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Runs `lines` as an ES module in a child process; its exit code and stdout. */
function runChild(lines: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", lines.join("\n")], {
    encoding: "utf8",
    timeout: 30_000,
  });
}

describe("BatchedOutput", () => {
  it("writes the lines of a quiet spell's turn at its end, in one write, in order", async () => {
    const writes: string[] = [];
    const output = new BatchedOutput({ write: (text: string) => void writes.push(text) });
    output.write("a\n");
    output.write("b\n");
    output.write("c\n");
    assert.deepEqual(writes, []);
    await turn();
    assert.deepEqual(writes, ["a\nb\nc\n"]);
  });

  it("holds lines that follow a write within the interval until it has passed, then writes them together", async () => {
    const writes: string[] = [];
    const output = new BatchedOutput({ write: (text: string) => void writes.push(text) }, 40);
    output.write("a\n");
    await turn();
    output.write("b\n");
    await turn();
    output.write("c\n");
    await turn();
    assert.deepEqual(writes, ["a\n"], "b and c wait for the interval");
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(writes, ["a\n", "b\nc\n"]);
  });

  it("a line written after a flush is still written at exit", () => {
    const child = runChild([
      'import { BatchedOutput } from "./packages/common/src/batched-output.ts";',
      "const output = new BatchedOutput({ write: (text) => process.stdout.write(text) }, 60_000);",
      'output.write("first\\n");',
      'setImmediate(() => { output.write("second\\n"); output.flush(); output.write("third\\n"); process.exit(0); });',
    ]);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout, "first\nsecond\nthird\n");
  });

  it("writes what it holds at once when flushed", () => {
    const writes: string[] = [];
    const output = new BatchedOutput({ write: (text: string) => void writes.push(text) });
    output.write("x\n");
    output.flush();
    assert.deepEqual(writes, ["x\n"]);
    output.flushSync();
    assert.deepEqual(writes, ["x\n"]);
  });

  it("JSON log lines through logOutput reach stdout, also when the process exits at once or crashes", () => {
    const module = new URL("../src/log-output.ts", import.meta.url).href;
    for (const [ending, code] of [
      ["process.exit(3)", 3],
      ["throw new Error('boom')", 1],
      ["", 0],
    ] as const) {
      const child = runChild([
        "const { default: pino } = await import('pino');",
        `const { logOutput } = await import(${JSON.stringify(module)});`,
        "const logger = pino({ base: undefined }, logOutput(false));",
        "for (const n of [1, 2, 3]) logger.info({ n }, 'line');",
        "await new Promise((resolve) => setImmediate(resolve));",
        "for (const n of [4, 5]) logger.info({ n }, 'line');",
        ending,
      ]);
      assert.equal(child.status, code, child.stderr);
      const numbers = child.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { n: number }).n);
      assert.deepEqual(numbers, [1, 2, 3, 4, 5], ending || "a natural exit");
    }
  });

  it("loses no line held when the process exits, by process.exit or by an uncaught exception", () => {
    const module = new URL("../src/batched-output.ts", import.meta.url).href;
    for (const [ending, code] of [
      ["process.exit(3)", 3],
      ["throw new Error('boom')", 1],
    ] as const) {
      const child = runChild([
        `const { BatchedOutput } = await import(${JSON.stringify(module)});`,
        "const output = new BatchedOutput({ write: (text) => process.stdout.write(text) });",
        "for (const line of ['line 0\\n', 'line 1\\n', 'line 2\\n']) output.write(line);",
        ending,
      ]);
      assert.equal(child.status, code, child.stderr);
      assert.equal(child.stdout, "line 0\nline 1\nline 2\n", ending);
    }
  });
});
