// A gateway that stops while a health probe waits on a backend that does not answer stops at once: the probe is
// aborted, not awaited for health_check.timeout_seconds (here a minute; the test's own timeout is far shorter).
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import { backendToml, Closers, startTestGateway } from "./helpers.ts";

describe("stopping during a health probe", () => {
  it("aborts the probe in flight instead of waiting for its timeout", { timeout: 20_000 }, async () => {
    // Answers the first GET /api/tags (the first round, which startGateway waits for); holds every later one.
    const held: IncomingMessage[] = [];
    let tagsAsked = 0;
    const server = createServer((request, response) => {
      if (request.url !== "/api/tags") return response.writeHead(404).end();
      if (++tagsAsked === 1)
        return response.writeHead(200, { "content-type": "application/json" }).end('{"models":[]}');
      held.push(request);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const closers = new Closers();
    try {
      const gateway = await startTestGateway(
        `[health_check]\ninterval_seconds = 1\ntimeout_seconds = 60\n${backendToml("silent", url, "ollama")}`,
        closers,
      );
      await waitUntil(() => held.length > 0, { what: "a second probe, held by the backend" });
      const aborted = new Promise<void>((resolve) => held[0]!.socket.once("close", resolve));
      await gateway.close();
      await aborted;
      assert.equal(tagsAsked, 2, "no probe after the stop");
    } finally {
      server.closeAllConnections();
      server.close();
      await closers.closeAll();
    }
  });
});
