import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { describe, it } from "node:test";
import { freePort } from "../src/ports.ts";

const [ephemeralLow = 32768, ephemeralHigh = 60999] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
  .trim()
  .split(/\s+/)
  .map(Number);

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("freePort", () => {
  it("gives distinct ports outside the OS's ephemeral range, which the caller can bind", async () => {
    const ports = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    assert.equal(new Set(ports).size, ports.length);
    for (const port of ports) {
      assert.ok(port < ephemeralLow || port > ephemeralHigh, `${port} is in ${ephemeralLow}-${ephemeralHigh}`);
    }
    const server = await listenOn(ports[0] as number);
    server.close();
  });

  it("skips a port something already listens on", async () => {
    // The next port this process would be given, held by a listener first.
    const probe = await freePort();
    const held = await listenOn(probe + 1).catch(() => undefined);
    try {
      const port = await freePort();
      if (held) assert.notEqual(port, probe + 1);
      const server = await listenOn(port);
      server.close();
    } finally {
      held?.close();
    }
  });
});
