// The bundle's copies of fastify, ws and prom-client require node's https, http2 and tls at their top, for paths the
// bridge never takes at start (a TLS or HTTP/2 server, a wss: client, a Pushgateway); the build gives them stand-ins
// that load the module on first use (scripts/build.mjs, LAZY_BUILTINS). None is loaded when the api listens, the
// accounts that connect to chat servers being started after it (start-order.test.ts).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { builtinsLoadedAtListening, freePort } from "@switchboard/testkit";
import { BIN } from "./bridge-process.ts";

describe("built-in modules the bridge loads before its api listens", () => {
  const dir = mkdtempSync(join(tmpdir(), "bridge-builtins-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves out https, http2 and tls", async () => {
    // Chat servers on a port nothing listens on: the accounts keep retrying while the api serves.
    const closed = await freePort();
    const config = join(dir, "matterbridge.toml");
    writeFileSync(
      config,
      `[api.web]\nBindAddress = "127.0.0.1:0"\n` +
        `[irc.chat]\nServer = "127.0.0.1:${closed}"\nNick = "bridgebot"\n` +
        `[xmpp.chat]\nServer = "127.0.0.1:${closed}"\nJid = "bridge@localhost"\nPassword = "pw"\n` +
        `Muc = "conference.localhost"\nNick = "Bridge"\n` +
        `[[gateway]]\nname = "g"\nenable = true\n` +
        `[[gateway.inout]]\naccount = "api.web"\nchannel = "api"\n` +
        `[[gateway.inout]]\naccount = "irc.chat"\nchannel = "#room"\n` +
        `[[gateway.inout]]\naccount = "xmpp.chat"\nchannel = "room"\n`,
    );
    const loaded = await builtinsLoadedAtListening([BIN, "-conf", config], { cwd: dir });
    assert.ok(loaded.has("http"), `the report lists what was loaded: ${[...loaded].join(" ")}`);
    for (const module of ["https", "http2", "tls"]) assert.ok(!loaded.has(module), `${module} was loaded`);
  });
});
