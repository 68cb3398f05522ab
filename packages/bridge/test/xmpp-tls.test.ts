// The xmpp account's TLS keys against a Prosody that offers STARTTLS with a self-signed certificate.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type ProsodyServer, startProsody, suiteTeardown } from "@switchboard/testkit";
import { startBridge } from "./helpers.ts";
import { API_ACCOUNT, gateway, USERS, xmppAccount } from "./xmpp-fixtures.ts";

const teardown = suiteTeardown();
let server: ProsodyServer;
before(async () => {
  server = await startProsody(teardown, { users: USERS, tls: true });
});

/** The account with NoTLS and SkipTLSVerify as given. */
const account = (noTls: boolean, skipVerify: boolean) =>
  xmppAccount(server, `SkipTLSVerify = ${skipVerify}`).replace("NoTLS = true", `NoTLS = ${noTls}`);

describe("xmpp account TLS", () => {
  it("upgrades with STARTTLS and accepts the self-signed certificate with SkipTLSVerify", async (t) => {
    const running = await startBridge(account(false, true) + API_ACCOUNT + gateway("g", ["secure"]), t);
    assert.ok(running.logs.some((line) => line.includes(`joined secure@${server.mucDomain}`)));
    assert.ok(running.logs.some((line) => line.includes('"tls":true') && line.includes("xmpp.chat logged in")));
  });

  it("refuses a certificate that does not verify, without SkipTLSVerify", async (t) => {
    await assert.rejects(
      startBridge(account(false, false) + API_ACCOUNT + gateway("g", ["unverified"]), t),
      /\[xmpp\.chat\] STARTTLS failed: .*self.signed/i,
    );
  });

  it("ignores the STARTTLS offer with NoTLS", async (t) => {
    const running = await startBridge(account(true, false) + API_ACCOUNT + gateway("g", ["plain"]), t);
    assert.ok(running.logs.some((line) => line.includes(`joined plain@${server.mucDomain}`)));
    assert.ok(running.logs.some((line) => line.includes('"tls":false') && line.includes("xmpp.chat logged in")));
  });
});
