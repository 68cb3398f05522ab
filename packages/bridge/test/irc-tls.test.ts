// The irc account over TLS with a client certificate (TLSClientCertificate, for CertFP) and a local address (Bind),
// through a TLS front to a real ngIRCd: the front (as stunnel or a bouncer would) asks for the client's certificate
// and passes the plain stream on, so the test sees exactly what the bridge presents and where it connects from.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createServer, type TLSSocket } from "node:tls";
import { connectIrcUser, selfSignedCertificate, startNgircd } from "@switchboard/testkit";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { configFromText } from "../src/config/load.ts";
import { openStream, post, startBridge, suiteTeardown } from "./helpers.ts";

describe("irc account over TLS with a client certificate and Bind", () => {
  const teardown = suiteTeardown();

  it("presents its certificate, connects from Bind, relays both ways", async () => {
    const server = await startNgircd(teardown);
    const folder = mkdtempSync(join(tmpdir(), "irc-cert-"));
    teardown.after(() => rmSync(folder, { recursive: true, force: true }));
    selfSignedCertificate(folder, "irc.test.local");
    selfSignedCertificate(folder, "bridgebot");
    const certificate = readFileSync(join(folder, "bridgebot.crt"));
    const pem = join(folder, "bridgebot.pem");
    writeFileSync(pem, Buffer.concat([certificate, readFileSync(join(folder, "bridgebot.key"))]));

    const seen: { fingerprint: string; from: string | undefined }[] = [];
    const front = createServer(
      {
        cert: readFileSync(join(folder, "irc.test.local.crt")),
        key: readFileSync(join(folder, "irc.test.local.key")),
        requestCert: true,
        rejectUnauthorized: false,
      },
      (socket: TLSSocket) => {
        seen.push({ fingerprint: socket.getPeerCertificate().fingerprint256 ?? "", from: socket.remoteAddress });
        const upstream = connect(server.port, "127.0.0.1");
        socket.pipe(upstream).pipe(socket);
        const close = () => {
          socket.destroy();
          upstream.destroy();
        };
        socket.on("error", close).on("close", close);
        upstream.on("error", close).on("close", close);
      },
    );
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    teardown.after(() => new Promise<void>((resolve) => front.close(() => resolve())));
    const port = (front.address() as { port: number }).port;

    const alice = await connectIrcUser(teardown, { ...server, nick: "alice", channels: ["#main"] });
    const bridge = await startBridge(
      `
[irc.tls]
Server = "127.0.0.1:${port}"
Nick = "bridgebot"
UseTLS = true
SkipTLSVerify = true
TLSClientCertificate = "${pem}"
Bind = "127.0.0.2"
RemoteNickFormat = "<{NICK}> "
MessageDelay = 0

[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "main"
enable = true
  [[gateway.inout]]
  account = "irc.tls"
  channel = "#main"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`,
      teardown,
    );
    const api = bridge.url("api.local");
    const stream = await openStream(api);
    teardown.after(() => stream.close());
    assert.deepEqual(seen, [{ fingerprint: new X509Certificate(certificate).fingerprint256, from: "127.0.0.2" }]);
    assert.equal((await post(api, { text: "over TLS", username: "bob", gateway: "main" })).status, 200);
    await alice.waitForMessage("#main", "<bob> over TLS");
    alice.say("#main", "back over TLS");
    await stream.waitFor((m) => m.text === "back over TLS", { what: "the IRC message on the api" });
  });

  it("refuses a certificate without TLS or beside SASL, and a Bind that is not an address, naming the fix", () => {
    const load = (keys: string) =>
      configFromText(
        `[irc.a]\nServer = "h:6697"\nNick = "b"\n${keys}\n[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\n` +
          'account = "irc.a"\nchannel = "#c"\n',
        "t.toml",
        { protocols: PROTOCOLS, env: {} },
      );
    assert.throws(() => load('TLSClientCertificate = "/c.pem"'), /TLSClientCertificate needs UseTLS = true/);
    assert.throws(
      () => load('TLSClientCertificate = "/c.pem"\nUseTLS = true\nUseSASL = true\nNickServPassword = "p"'),
      /TLSClientCertificate and UseSASL cannot both be set/,
    );
    assert.throws(() => load('Bind = "eth0"'), /Bind must be an IP address of this machine/);
    assert.equal(load('TLSClientCertificate = "/c.pem"\nUseTLS = true\nBind = "::1"').warnings.length, 0);
  });
});
