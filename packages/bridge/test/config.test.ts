// Config loading: matterbridge.toml as users have it (case-insensitive keys, env overlay, gateways) and its errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { configFromText, loadConfig } from "../src/config/load.ts";

const load = (text: string, env: NodeJS.ProcessEnv = {}) =>
  configFromText(text, "t.toml", { protocols: PROTOCOLS, env });

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
    assert.equal(account.settings["BindAddress"], "127.0.0.1:1");
    assert.equal(account.settings.RemoteNickFormat, "G<{NICK}>");
    assert.equal(account.settings.StripNick, false, "the account's own key wins over [general]");
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
    assert.equal(settings?.["Buffer"], 42);
    assert.equal(settings?.["Token"], "tok");
    assert.deepEqual(settings?.ReplaceMessages, [["a", "b"]]);
    assert.equal(settings?.ShowJoinPart, true);
    assert.throws(() => load(ONE, { MATTERBRIDGE_API_A_BUFFER: "many" }), /Buffer must be an integer/);
  });

  it("creates an account from the environment alone when a gateway uses it", () => {
    const text = ONE.replace('[api.a]\nBindAddress = "127.0.0.1:1"\n', "");
    assert.throws(() => load(text), /account api\.a is used in gateway "g" but has no \[api\.a\] section/);
    const config = load(text, { MATTERBRIDGE_API_A_BINDADDRESS: "127.0.0.1:2" });
    assert.equal(config.accounts.get("api.a")?.settings["BindAddress"], "127.0.0.1:2");
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
      config.warnings.some((w) => w.includes('[api.a]: key "Nick" is not used')),
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
    const config = loadConfig(path, { protocols: PROTOCOLS, env: {} });
    assert.deepEqual([...config.accounts.keys()], ["api.alice", "api.bob"]);
    assert.deepEqual(config.warnings, []);
    assert.equal(config.gateways.length, 1);
  });

  it("says that JSON and YAML configs are not supported", () => {
    for (const name of ["matterbridge.json", "mb.yaml", "mb.YML"]) {
      assert.throws(
        () => loadConfig(name, { protocols: PROTOCOLS }),
        /configs are not supported; write the same keys as TOML/,
      );
    }
  });

  it("accepts Go-style (?i) flags in patterns", () => {
    const config = load(
      ONE.replace('BindAddress = "127.0.0.1:1"', 'BindAddress = "127.0.0.1:1"\nIgnoreNicks = "(?i)^bot"'),
    );
    assert.equal(config.accounts.get("api.a")?.settings.IgnoreNicks, "(?i)^bot");
  });
});

describe("config errors", () => {
  const withKey = withLine;
  const message = (fn: () => unknown): string => {
    try {
      fn();
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    assert.fail("no error");
  };

  it("never print a secret's value", () => {
    const token = message(() => load(withKey("Token = 987654321")));
    assert.match(token, /\[api\.a\]: Token must be a string \(got an integer \(value hidden\)\)/);
    assert.doesNotMatch(token, /987654321/);
    const fromGeneral = message(() => load(`[general]\nToken = 987654321\n${ONE}`));
    assert.match(fromGeneral, /\[general\] \(the default for api\.a\): Token must be a string/);
    assert.doesNotMatch(fromGeneral, /987654321/);
    const fromEnv = message(() => load(ONE, { MATTERBRIDGE_API_A_TOKEN: " env-secret-value " }));
    assert.doesNotMatch(fromEnv, /env-secret-value/);
    // Keys that only look secret (another protocol's Password) are warned about without their value.
    const config = load(withKey('Password = "hunter2-long"\nNickServPassword = "x-secret"'));
    assert.doesNotMatch(config.warnings.join("\n"), /hunter2|x-secret/);
  });

  it("name TOML types as TOML does: infinity, not-a-number, dates, tables, lists, floats", () => {
    const cases: [string, RegExp][] = [
      ["Buffer = inf", /Buffer must be an integer \(got infinity \(inf\)\)/],
      ["Buffer = -inf", /got negative infinity \(-inf\)/],
      ["Buffer = nan", /got not-a-number \(nan\)/],
      ["Buffer = 1979-05-27", /got a date \(1979-05-27\)/],
      ["Buffer = 07:32:00", /got a time/],
      ["Buffer = 1979-05-27T07:32:00Z", /got a date-time/],
      ["Buffer = 1.5", /got 1\.5\)/],
      ['Buffer = "ten"', /got the string "ten"\)/],
      ["Buffer = [1, 2]", /got a list \(\[1,2\]\)/],
      ["Buffer = { x = 1 }", /got a table\)/],
      ["StripNick = 1", /StripNick must be true or false \(got 1\)/],
    ];
    for (const [line, pattern] of cases) {
      const text = message(() => load(withKey(line)));
      assert.match(text, pattern, line);
      assert.doesNotMatch(text, /got (a |an )?(number|object|null)\b/, line);
    }
  });

  it("refuse an api Token with leading or trailing whitespace, which no client could ever match", () => {
    for (const token of [" abc", "abc ", "\tabc", "abc\n"]) {
      const text = message(() => load(withKey(`Token = ${JSON.stringify(token)}`)));
      assert.match(text, /\[api\.a\] Token has leading or trailing whitespace/);
      assert.doesNotMatch(text, /abc/);
    }
    assert.equal(load(withKey('Token = "abc"')).accounts.get("api.a")?.settings["Token"], "abc");
  });

  it("suggest the nearest known key for an unknown one, and name a misspelt required key", () => {
    const config = load(withKey('Tokn = "abc"\nRemoteNickFromat = "x"\nCompletelyDifferent = 1'));
    const warnings = config.warnings.join("\n");
    assert.match(
      warnings,
      /\[api\.a\]: key "Tokn" is not used by Switchboard for api accounts; ignored \(did you mean Token\?\)/,
    );
    assert.match(warnings, /key "RemoteNickFromat" .* \(did you mean RemoteNickFormat\?\)/);
    assert.match(warnings, /key "CompletelyDifferent" is not used by Switchboard for api accounts; ignored$/m);
    const general = load(`[general]\nRemoteNikFormat = "x"\n${ONE}`).warnings.join("\n");
    assert.match(
      general,
      /\[general\]: key "RemoteNikFormat" is not used by Switchboard; ignored \(did you mean RemoteNickFormat\?\)/,
    );
    assert.match(
      message(() => load(ONE.replace("BindAddress", "BindAdress"))),
      /^\[api\.a\] has no BindAddress; did you mean BindAdress → BindAddress\? \(e\.g\. BindAddress = "127\.0\.0\.1:4242"\)$/,
    );
    assert.match(
      message(() => load(ONE.replace("BindAddress", "Unrelated"))),
      /^\[api\.a\] has no BindAddress; add e\.g\./,
    );
  });

  it("check the core's supervision keys", () => {
    assert.match(
      message(() => load(withKey("ReconnectDelay = 0"))),
      /ReconnectDelay must be between 1 and/,
    );
    assert.match(
      message(() => load(withKey("ReconnectDelay = 5000\nReconnectMaxDelay = 1000"))),
      /ReconnectMaxDelay \(1000 ms\) must not be below ReconnectDelay \(5000 ms\)/,
    );
    const settings = load(`[general]\nMessageQueue = 7\n${ONE}`).accounts.get("api.a")?.settings;
    assert.equal(settings?.MessageQueue, 7, "[general] gives every account its default");
    assert.equal(settings?.ReconnectDelay, 1000);
  });
});

describe("config names that are Object.prototype members", () => {
  const names = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf");

  it("are ordinary names wherever they appear: keys, sections, accounts, gateways, env", () => {
    fc.assert(
      fc.property(names, names, names, (key, account, gateway) => {
        const toml = `
[general]
${key} = "g"
[api.${account}]
BindAddress = "127.0.0.1:1"
${key} = 1
[${key}.x]
y = 1
[[gateway]]
name = "${gateway}"
enable = true
[[gateway.inout]]
account = "api.${account}"
channel = "${key}"
[gateway.inout.options]
${key} = "k"
`;
        const config = load(toml, { [`MATTERBRIDGE_API_${account.toUpperCase()}_${key.toUpperCase()}`]: "x" });
        const loaded = config.accounts.get(`api.${account}`);
        assert.ok(loaded, `api.${account} resolved`);
        assert.equal(loaded.settings["BindAddress"], "127.0.0.1:1");
        assert.equal(Object.getPrototypeOf({}), Object.prototype, "no prototype was polluted");
        assert.equal(({} as Record<string, unknown>)["y"], undefined);
        assert.equal(config.gateways[0]?.name, gateway);
        assert.equal(config.gateways[0]?.channels[0]?.channel, key);
        assert.ok(
          config.warnings.some((w) => w.includes(`key "${key}"`)),
          config.warnings.join("\n"),
        );
      }),
    );
  });

  it("are not protocols, accounts or keys just because plain objects have them", () => {
    for (const name of ["__proto__", "constructor", "toString"]) {
      const gateway = `[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "${name}.x"\nchannel = "c"\n`;
      assert.throws(() => load(gateway), new RegExp(`protocol "${name.toLowerCase()}" is not a known protocol`));
      const missing = `[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "api.${name}"\nchannel = "c"\n`;
      assert.throws(() => load(missing), /has no \[api\..*\] section/);
    }
  });

  it("random keys and values in an account never crash the reader: a ConfigError or a config", () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constantFrom("inf", "nan", "-inf", "1979-05-27", "[]", '[["a", "b"]]', "{ a = 1 }", "1.5"),
    );
    fc.assert(
      fc.property(
        fc.oneof(names, fc.constantFrom("Buffer", "Token", "BindAddress", "ReplaceNicks", "StripNick", "MessageQueue")),
        value,
        (key, raw) => {
          const literal =
            typeof raw === "string" && !/^(inf|nan|-inf|1979-05-27|\[.*\]|\{.*\}|1\.5)$/.test(raw)
              ? JSON.stringify(raw)
              : String(raw);
          try {
            load(withLine(`${key} = ${literal}`));
          } catch (error) {
            assert.equal((error as Error).name, "ConfigError", String(error));
            assert.doesNotMatch((error as Error).message, /\n/);
          }
        },
      ),
    );
  });
});

/** ONE with an extra line in [api.a]. */
function withLine(line: string): string {
  return ONE.replace('BindAddress = "127.0.0.1:1"', () => `BindAddress = "127.0.0.1:1"\n${line}`);
}
