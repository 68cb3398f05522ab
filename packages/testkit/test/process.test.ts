import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { freePort, isPortOpen, startProcess } from "../src/index.ts";

const listen = (port: number) =>
  `require("node:http").createServer((q, s) => s.end("up")).listen(${port}, "127.0.0.1", () => console.log("listening on ${port}"))`;

describe("startProcess", () => {
  it("waits for the port, then stops the process by PID and frees the port", async () => {
    const port = await freePort();
    const server = await startProcess({ command: process.execPath, args: ["-e", listen(port)], ready: { port } });
    assert.equal(await isPortOpen(port), true);
    const { signal } = await server.stop();
    assert.equal(signal, "SIGTERM");
    assert.equal(await isPortOpen(port), false);
  });

  it("waits for a log line", async () => {
    const port = await freePort();
    const server = await startProcess(
      { command: process.execPath, args: ["-e", listen(port)], ready: { line: /listening on \d+/ } },
      { after },
    );
    assert.match(server.output, new RegExp(`listening on ${port}`));
  });

  it("fails with the process output when it exits before it is ready", async () => {
    const port = await freePort();
    await assert.rejects(
      startProcess({
        command: process.execPath,
        args: ["-e", 'console.error("bad config: no gateway"); process.exit(1)'],
        ready: { port },
        timeoutMs: 5_000,
      }),
      /exited \(1\) before listening[\s\S]*bad config: no gateway/,
    );
  });

  it("gives up after the timeout and leaves nothing running", async () => {
    let pid = -1;
    await assert.rejects(
      startProcess({
        command: process.execPath,
        args: ["-e", "setInterval(() => {}, 1000)"],
        ready: { line: "never printed" },
        timeoutMs: 300,
      }).catch((error: Error) => {
        pid = Number(/\(pid (\d+)\)/.exec(error.message)?.[1]);
        throw error;
      }),
      /did not finish within 300 ms/,
    );
    assert.ok(pid > 0);
    assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
  });

  it("escalates to SIGKILL when SIGTERM is ignored", async () => {
    const server = await startProcess({
      command: process.execPath,
      args: ["-e", "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"],
      ready: { line: "ready" },
    });
    const { signal } = await server.stop(200);
    assert.equal(signal, "SIGKILL");
  });
});
