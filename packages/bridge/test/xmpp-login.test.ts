// The xmpp account's configuration and login failures: what retrying cannot fix stops start-up with one line naming
// the account and the key to change, never showing the password.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type ProsodyServer, startProsody, suiteTeardown } from "@switchboard/testkit";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { configFromText } from "../src/config/load.ts";
import { startBridge } from "./helpers.ts";
import { API_ACCOUNT, gateway, USERS, xmppAccount } from "./xmpp-fixtures.ts";

const teardown = suiteTeardown();
let server: ProsodyServer;
before(async () => {
  server = await startProsody(teardown, { users: USERS });
});

const load = (text: string) => configFromText(text, "test.toml", { protocols: PROTOCOLS, env: {} });

describe("xmpp account configuration and login", () => {
  it("a refused password stops start-up naming the account, without the password", async (t) => {
    const toml = xmppAccount(server).replace('Password = "bridgepw"', 'Password = "wrong-secret"');
    await assert.rejects(startBridge(toml + API_ACCOUNT + gateway("g", ["refused"]), t), (error: Error) => {
      assert.match(
        error.message,
        /\[xmpp\.chat\] login refused by the server \(not-authorized\): check Jid and Password/,
      );
      assert.doesNotMatch(error.message, /wrong-secret/);
      return true;
    });
  });

  it("refuses to log in without encryption unless NoTLS says so", async (t) => {
    const toml = xmppAccount(server).replace("NoTLS = true", "");
    await assert.rejects(
      startBridge(toml + API_ACCOUNT + gateway("g", ["plain"]), t),
      /offers no STARTTLS: set NoTLS = true/,
    );
  });

  it("checks its keys: Server, Jid, Password, Muc, Nick", () => {
    const problems = [
      ['Server = "jabber.example.com:99999"', /Server must be host:port/],
      ['Jid = "no-domain"', /Jid must be user@domain/],
      ['Muc = "x@y"', /Muc must be the MUC service's domain/],
      ['Nick = ""', /Nick must not be empty/],
      ['Password = ""', /has no Password/],
    ] as const;
    const valid = xmppAccount(server);
    for (const [line, expected] of problems) {
      const key = line.split(" = ")[0] ?? "";
      const text = valid.replace(new RegExp(`^${key} = .*$`, "m"), line);
      assert.throws(() => load(text + API_ACCOUNT + gateway("g", ["room"])), expected, line);
    }
    // Anonymous needs neither Jid nor Password; the port defaults to 5222.
    const anonymous =
      '[xmpp.anon]\nServer = "jabber.example.com"\nAnonymous = true\nMuc = "conference.jabber.example.com"\nNick = "b"\n';
    const config = load(`${anonymous}${API_ACCOUNT}${gateway("g", ["room"]).replace("xmpp.chat", "xmpp.anon")}`);
    assert.ok(config.accounts.has("xmpp.anon"));
  });

  it("warns about Matterbridge's xmpp keys it does not implement", () => {
    const config = load(
      `${xmppAccount(server, 'WebhookURL = "https://example.org/hook"')}${API_ACCOUNT}${gateway("g", ["room"])}`,
    );
    assert.ok(
      config.warnings.some((w) => /WebhookURL" is not supported yet for xmpp accounts/.test(w)),
      config.warnings.join("\n"),
    );
  });
});
