// Config loading: matterbridge.toml as users have it (case-insensitive keys, env overlay, gateways) and its errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { configFromText, loadConfig } from "../src/config/load.ts";

const load = (text: string, env: NodeJS.ProcessEnv = {}) =>
  configFromText(text, "t.toml", { supportedProtocols: ["api"], env });

const ONE = `
[api.a]
BindAddress = "127.0.0.1:1"
[[gateway]]
name = "g"
enable = true
[[gateway.inout]]
account = "api.a"
channel = "c"
`;

describe("config", () => {
  it("matches keys case-insensitively and merges [general] under each account", () => {
    const config = load(`
[GENERAL]
remotenickformat = "G<{NICK}>"
StripNick = true
[Api.A]
BINDADDRESS = "127.0.0.1:1"
stripnick = false
[[gateway]]
Name = "g"
Enable = true
[[gateway.InOut]]
Account = "api.A"
Channel = "c"
`);
    const account = config.accounts.get("api.A");
    assert.ok(account, [...config.accounts.keys()].join());
    assert.equal(account.settings.bindaddress, "127.0.0.1:1");
    assert.equal(account.settings.remotenickformat, "G<{NICK}>");
    assert.equal(account.settings.stripnick, false, "the account's own key wins over [general]");
    assert.equal(config.gateways[0]?.channels[0]?.account, "api.A");
  });

  it("overlays MATTERBRIDGE_<PROTOCOL>_<NAME>_<KEY> and MATTERBRIDGE_GENERAL_<KEY>, typed", () => {
    const config = load(ONE, {
      MATTERBRIDGE_API_A_BUFFER: "42",
      MATTERBRIDGE_API_A_TOKEN: "tok",
      MATTERBRIDGE_API_A_REPLACEMESSAGES: '[["a","b"]]',
      MATTERBRIDGE_GENERAL_SHOWJOINPART: "true",
      MATTERBRIDGE_API_A_NOTAKEY: "x",
    });
    const settings = config.accounts.get("api.a")?.settings;
    assert.equal(settings?.buffer, 42);
    assert.equal(settings?.token, "tok");
    assert.deepEqual(settings?.replacemessages, [["a", "b"]]);
    assert.equal(settings?.showjoinpart, true);
    assert.throws(() => load(ONE, { MATTERBRIDGE_API_A_BUFFER: "many" }), /Buffer must be an integer/);
  });

  it("creates an account from the environment alone when a gateway uses it", () => {
    const text = ONE.replace('[api.a]\nBindAddress = "127.0.0.1:1"\n', "");
    assert.throws(() => load(text), /account api\.a is used in gateway "g" but has no \[api\.a\] section/);
    const config = load(text, { MATTERBRIDGE_API_A_BINDADDRESS: "127.0.0.1:2" });
    assert.equal(config.accounts.get("api.a")?.settings.bindaddress, "127.0.0.1:2");
  });

  it("merges the same account and channel in in and out into inout; only enabled gateways count", () => {
    const config = load(`
[api.a]
BindAddress = "127.0.0.1:1"
[api.b]
BindAddress = "127.0.0.1:2"
[api.unused]
BindAddress = "127.0.0.1:3"
[[gateway]]
name = "g"
enable = true
[[gateway.in]]
account = "api.a"
channel = "c"
[[gateway.out]]
account = "api.a"
channel = "c"
[[gateway.out]]
account = "api.b"
[gateway.out.options]
key = "secret"
[[gateway]]
name = "off"
[[gateway.inout]]
account = "api.unused"
`);
    assert.deepEqual(
      config.gateways.map((g) => g.name),
      ["g"],
    );
    assert.deepEqual(
      config.gateways[0]?.channels.map((c) => [c.account, c.channel, c.direction]),
      [
        ["api.a", "c", "inout"],
        ["api.b", "api", "out"],
      ],
    );
    // Config tables have no prototype (names from the file are plain keys); compare the entries.
    assert.deepEqual({ ...config.gateways[0]?.channels[1]?.options }, { key: "secret" });
    assert.deepEqual([...config.accounts.keys()], ["api.a", "api.b"]);
    assert.ok(config.warnings.some((w) => w.includes("[api.unused] is not used")));
  });

  it("expands [[samechannelgateway]] into every account x channel, marked same-channel", () => {
    const config = load(`
[api.a]
BindAddress = "127.0.0.1:1"
[api.b]
BindAddress = "127.0.0.1:2"
[[samechannelgateway]]
name = "s"
enable = true
accounts = ["api.a", "api.b"]
channels = ["x", "y"]
`);
    assert.deepEqual(
      config.gateways[0]?.channels.map((c) => `${c.account}/${c.channel}/${c.direction}/${c.sameChannel}`),
      ["api.a/x/inout/true", "api.a/y/inout/true", "api.b/x/inout/true", "api.b/y/inout/true"],
    );
  });

  it("warns about keys it does not use, and [tengo]", () => {
    const config = load(
      `${ONE}\n[tengo]\nOutMessage = "x.tengo"\n`
        .replace('channel = "c"', 'channel = "c"')
        .replace("[api.a]", '[api.a]\nNick = "bot"'),
    );
    assert.ok(
      config.warnings.some((w) => w.includes('[api.a]: key "nick" is not used')),
      config.warnings.join("\n"),
    );
    assert.ok(config.warnings.some((w) => w.includes("[tengo]")));
  });

  it("rejects invalid regular expressions and bad values with one clear line", () => {
    const withKey = (line: string) =>
      ONE.replace('BindAddress = "127.0.0.1:1"', `BindAddress = "127.0.0.1:1"\n${line}`);
    assert.throws(
      () => load(withKey('IgnoreNicks = "ok ([unclosed"')),
      /\[api\.a\]: IgnoreNicks has an invalid regular expression/,
    );
    assert.throws(
      () => load(withKey('ReplaceMessages = [["a"]]')),
      /ReplaceMessages must be a list of \[regex, replacement\] pairs/,
    );
    assert.throws(() => load(withKey('StripNick = "yes"')), /StripNick must be true or false/);
    assert.throws(() => load(withKey("Buffer = -1")), /Buffer must be between 0 and 1000000/);
    assert.throws(() => load(ONE.replace("127.0.0.1:1", "localhost")), /BindAddress must be <host>:<port>/);
    assert.throws(
      () => load(ONE.replace('account = "api.a"', 'account = "api"')),
      /must be written <protocol>\.<name>/,
    );
    assert.throws(() => load(ONE.replace('name = "g"\n', "")), /\[\[gateway\]\] number 1 has no name/);
    assert.throws(() => load(ONE.replace("enable = true", 'enable = "yes"')), /enable must be true or false/);
    assert.throws(() => load("[general\n"), /t\.toml:1:\d+: invalid TOML/);
  });

  it("loads examples/bridge.toml (the config npm start uses)", () => {
    const path = fileURLToPath(new URL("../../../examples/bridge.toml", import.meta.url));
    const config = loadConfig(path, { supportedProtocols: ["api"], env: {} });
    assert.deepEqual([...config.accounts.keys()], ["api.alice", "api.bob"]);
    assert.deepEqual(config.warnings, []);
    assert.equal(config.gateways.length, 1);
  });

  it("says that JSON and YAML configs are not supported", () => {
    for (const name of ["matterbridge.json", "mb.yaml", "mb.YML"]) {
      assert.throws(
        () => loadConfig(name, { supportedProtocols: ["api"] }),
        /configs are not supported; write the same keys as TOML/,
      );
    }
  });

  it("accepts Go-style (?i) flags in patterns", () => {
    const config = load(
      ONE.replace('BindAddress = "127.0.0.1:1"', 'BindAddress = "127.0.0.1:1"\nIgnoreNicks = "(?i)^bot"'),
    );
    assert.equal(config.accounts.get("api.a")?.settings.ignorenicks, "(?i)^bot");
  });
});
