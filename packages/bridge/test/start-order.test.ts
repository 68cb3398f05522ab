// The order a bridge starts its accounts in (Bridge.start): the api accounts listen and answer before an account that
// loads a client library connects, whatever the config's order, so an IRC server that is slow to accept a client
// never holds up the api; and a stop that begins before the accounts are started starts none of them.
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { Writable } from "node:stream";
import { after, describe, it } from "node:test";
import { waitUntil, withTimeout } from "@switchboard/testkit";
import { pino } from "pino";
import { ApiAccount } from "../src/accounts/api/api-account.ts";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { Bridge } from "../src/bridge.ts";
import { configFromText } from "../src/config/load.ts";
import { http } from "./helpers.ts";

/** An "IRC server" that accepts connections and never answers them (no welcome: registration never completes). */
async function silentServer(): Promise<{ port: number; accepted: Socket[]; server: Server }> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { port: address.port, accepted, server };
}

/** The IRC account first in the config, the api account after it. */
const config = (ircPort: number) => `
[irc.slow]
Server = "127.0.0.1:${ircPort}"
Nick = "bridgebot"

[api.web]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "irc.slow"
  channel = "#room"
  [[gateway.inout]]
  account = "api.web"
  channel = "api"
`;

function bridgeFor(ircPort: number): Bridge {
  const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
  return new Bridge(configFromText(config(ircPort), "test.toml", { protocols: PROTOCOLS, env: {} }), {
    logger: pino({ level: "info" }, quiet),
  });
}

const apiAccount = (bridge: Bridge) => {
  const connection = bridge.accounts.get("api.web")?.connection;
  assert.ok(connection instanceof ApiAccount);
  return connection;
};

describe("bridge start order", () => {
  it("answers on its api while an IRC account listed before it is still waiting for its server", async () => {
    const irc = await silentServer();
    const bridge = bridgeFor(irc.port);
    after(() => {
      for (const socket of irc.accepted) socket.destroy();
      irc.server.close();
    });
    const starting = bridge.start();
    // The IRC server never completes a registration: the IRC account's first attempt lasts until its 30 s timeout.
    const address = await waitUntil(() => apiAccount(bridge).address, { what: "the api account to listen" });
    const health = await http(`http://127.0.0.1:${address.port}/api/health`);
    assert.equal(health.status, 200);
    assert.notEqual(bridge.accounts.get("irc.slow")?.supervisor.state, "connected");
    // The IRC account is still started, after the api.
    await waitUntil(() => irc.accepted.length > 0, { what: "the IRC account to connect" });
    assert.equal(bridge.accounts.get("irc.slow")?.supervisor.state, "connecting");
    // The server hangs up: the first attempt ends (to be retried), and with it the start.
    for (const socket of irc.accepted) socket.destroy();
    await starting;
    await bridge.stop();
  });

  it("starts no account once a stop has begun", async () => {
    const irc = await silentServer();
    after(() => irc.server.close());
    const bridge = bridgeFor(irc.port);
    const starting = bridge.start();
    await bridge.stop();
    await starting;
    assert.equal(apiAccount(bridge).address, undefined, "the api account never listened");
    assert.equal(bridge.accounts.get("irc.slow")?.supervisor.state, "idle");
    assert.equal(irc.accepted.length, 0);
  });

  it("stops at once while the IRC server has accepted the account but not registered it", async () => {
    const irc = await silentServer();
    after(() => {
      for (const socket of irc.accepted) socket.destroy();
      irc.server.close();
    });
    const bridge = bridgeFor(irc.port);
    const starting = bridge.start();
    await waitUntil(() => irc.accepted.length > 0, { what: "the IRC account to connect" });
    // The attempt would otherwise last until its 30 s connect timeout, and the stop with it.
    await withTimeout(Promise.all([bridge.stop(), starting]), 10_000, "the stop during registration");
    assert.equal(bridge.accounts.get("irc.slow")?.supervisor.state, "stopped");
  });
});
