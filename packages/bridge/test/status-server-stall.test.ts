// The status endpoint answers a probe sent while the bridge's event loop was stalled past the idle timeout (a heap
// snapshot, a starved core) on a kept-alive connection, rather than resetting it; an idle connection still closes.
import assert from "node:assert/strict";
import { once } from "node:events";
import { type AddressInfo, connect } from "node:net";
import { describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import { createStatusServer } from "../src/status/server.ts";

const IDLE_MS = 200;
/** Past the idle timeout, and the second node:http adds to it. */
const STALL_MS = IDLE_MS + 1_500;
const LIMITS = { headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, idleTimeoutMs: IDLE_MS, maxConnections: 8 };
const ROUTES = new Map([["/health", () => ({ status: 200, contentType: "text/plain", body: "OK" })]]);

describe("status endpoint: kept-alive connections and stalls", () => {
  it("answers a probe that arrived while the loop was stalled past the idle timeout", async () => {
    const server = createStatusServer(ROUTES, LIMITS, (error) => assert.fail(String(error)));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    socket.on("error", () => {});
    let received = "";
    let closed = false;
    socket.setEncoding("latin1").on("data", (chunk: string) => (received += chunk));
    socket.on("close", () => (closed = true));
    const answers = () => received.split("HTTP/1.1 200 ").length - 1;
    try {
      await once(socket, "connect");
      const probe = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
      socket.write(probe);
      await waitUntil(() => answers() === 1, { timeoutMs: 5_000, what: "the first answer" });
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          socket.write(probe);
          const end = Date.now() + STALL_MS;
          while (Date.now() < end);
          resolve();
        }),
      );
      await waitUntil(() => answers() === 2, { timeoutMs: 5_000, what: "the answer to the probe sent in the stall" });
      await waitUntil(() => closed, { timeoutMs: 5_000, what: "the idle connection closed afterwards" });
    } finally {
      socket.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
