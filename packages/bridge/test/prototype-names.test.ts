// Names from clients and configs are data, never object keys that reach Object.prototype: every name it holds
// (__proto__, constructor, toString, hasOwnProperty...) is thrown at every name-taking field, route and config name.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ApiAccount } from "../src/accounts/api/api-account.ts";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { ConfigError } from "../src/config/errors.ts";
import { configFromText } from "../src/config/load.ts";
import { useFourAccounts } from "./four-accounts.ts";
import { http, post, readMessages, startBridge } from "./helpers.ts";

const NAMES = Object.getOwnPropertyNames(Object.prototype);
const name = fc.constantFrom(...NAMES);
const PROTOTYPE_SNAPSHOT = NAMES.join(",");

function assertPrototypeUntouched(): void {
  assert.equal(Object.getOwnPropertyNames(Object.prototype).join(","), PROTOTYPE_SNAPSHOT);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
  for (const key of ["bindaddress", "token", "a", "g", "api"])
    assert.equal(key in {}, false, `Object.prototype.${key}`);
}

const load = (toml: string, env: NodeJS.ProcessEnv = {}) =>
  configFromText(toml, "names.toml", { protocols: PROTOCOLS, env });

describe("Object.prototype names as names", () => {
  describe("over the API", () => {
    const { url, drain } = useFourAccounts();
    const designed = (answer: { status: number; body: string }) => {
      assert.ok([200, 400, 401, 404, 405].includes(answer.status), `${answer.status} ${answer.body}`);
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      if (answer.status !== 200) assert.deepEqual(Object.keys(body), ["message"]);
      return body;
    };

    it("in every message field, as JSON keys, Extra keys and file entry keys", async () => {
      const field = fc.constantFrom("text", "username", "userid", "avatar", "gateway", "event", "parent_id", "channel");
      const where = fc.constantFrom("field", "key", "extra", "file-key", "form-field", "form-key");
      await fc.assert(
        fc.asyncProperty(name, field, where, async (n, f, w) => {
          const base: Record<string, unknown> = { text: "x", username: "u", gateway: "gw" };
          let answer: { status: number; body: string };
          if (w === "form-field" || w === "form-key") {
            const form = new URLSearchParams({ text: "x", gateway: "gw" });
            if (w === "form-field") form.set(f, n);
            else form.set(n, "v");
            answer = await http(`${url("a")}/api/message`, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: form.toString(),
            });
          } else {
            // JSON.parse makes "__proto__" an own key, as any client-sent name.
            const text = JSON.stringify(base).slice(0, -1);
            const extra =
              w === "field"
                ? `,${JSON.stringify(f)}:${JSON.stringify(n)}`
                : w === "key"
                  ? `,${JSON.stringify(n)}:"v"`
                  : w === "extra"
                    ? `,"Extra":{${JSON.stringify(n)}:[]}`
                    : `,"Extra":{"file":[{"Name":"f","URL":"u",${JSON.stringify(n)}:"v"}]}`;
            answer = await http(`${url("a")}/api/message`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: `${text}${extra}}`,
            });
          }
          const body = designed(answer);
          if (w === "field" && f === "gateway")
            assert.match(String(body["message"]), /not one this account can post to/);
          if (w === "field" && f === "event") assert.equal(answer.status, 400);
          if (w === "field" && ["text", "username", "userid", "avatar", "parent_id"].includes(f)) {
            assert.equal(body[f], n);
          }
          if (w === "key" || w === "file-key" || w === "form-key") assert.equal(answer.status, 200, answer.body);
          if (w === "extra") assert.match(String(body["message"]), /is not accepted; only Extra\.file/);
        }),
        { numRuns: 200 },
      );
      await drain();
      assertPrototypeUntouched();
    });

    it("in paths, methods and the Authorization header", async () => {
      for (const n of NAMES) {
        designed(await http(`${url("a")}/${n}`));
        designed(await http(`${url("a")}/api/${n}`));
        designed(await http(`${url("a")}/api/messages?${n}=1`));
        designed(await http(`${url("locked")}/api/health`, { headers: { authorization: `Bearer ${n}` } }));
        designed(await post(url("a"), { text: "x", username: "u", gateway: n }));
      }
      assert.equal((await http(`${url("a")}/api/health`)).body, "OK");
    });
  });

  describe("in the config", () => {
    it("as account, gateway and channel names: the bridge routes between them", async (t) => {
      for (const n of NAMES) {
        const bridge = await startBridge(
          `[api.${n}]\nBindAddress = "127.0.0.1:0"\n[api.other]\nBindAddress = "127.0.0.1:0"\n` +
            `[[gateway]]\nname = "${n}"\nenable = true\n` +
            `[[gateway.inout]]\naccount = "api.${n}"\nchannel = "${n}"\n[gateway.inout.options]\n${n} = "opt"\n` +
            `[[gateway.inout]]\naccount = "api.other"\nchannel = "${n}"\n`,
          t,
        );
        const account = bridge.bridge.accounts.get(`api.${n}`);
        assert.ok(account?.connection instanceof ApiAccount, `api.${n} exists`);
        const options = bridge.bridge.config.gateways[0]?.channels[0]?.options ?? {};
        assert.deepEqual(Object.keys(options), [n.toLowerCase()], "an options key is kept as a (lower-cased) key");
        const answer = await post(bridge.url("api.other"), { text: `to ${n}`, username: "u", gateway: n });
        assert.equal(answer.status, 200, answer.body);
        const [got] = await readMessages(bridge.url(`api.${n}`));
        assert.equal(got?.text, `to ${n}`);
        assert.equal(got?.gateway, n);
        await bridge.stop();
      }
      assertPrototypeUntouched();
    });

    it("as keys in [general], accounts and the file's top level: warned about as unknown keys", () => {
      for (const n of NAMES) {
        const config = load(
          `${n} = 1\n[general]\n${n} = "x"\n[api.a]\nBindAddress = "127.0.0.1:0"\n${n} = 2\n` +
            `[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "api.a"\n`,
        );
        const unknown = config.warnings.filter((w) => w.includes(`key "${n}" is not used`));
        assert.equal(unknown.length, 2, `${n}: ${config.warnings.join("; ")}`);
        assert.equal(config.accounts.get("api.a")?.settings["BindAddress"], "127.0.0.1:0");
      }
      assertPrototypeUntouched();
    });

    it("as protocol names and in environment overrides: a clear config error or an override, nothing else", () => {
      for (const n of NAMES) {
        assert.throws(
          () =>
            load(
              `[${n}.a]\nX = 1\n[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "${n}.a"\nchannel = "c"\n`,
            ),
          (error) => error instanceof ConfigError && /not (a known protocol|supported)/.test(error.message),
        );
        const env = { [`MATTERBRIDGE_API_${n.toUpperCase()}_BINDADDRESS`]: "127.0.0.1:0" };
        const config = load(`[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "api.${n}"\n`, env);
        assert.equal(config.accounts.get(`api.${n}`)?.settings["BindAddress"], "127.0.0.1:0");
      }
      assertPrototypeUntouched();
    });
  });
});
