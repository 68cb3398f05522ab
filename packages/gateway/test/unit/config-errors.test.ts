import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ConfigError } from "../../src/config/config-error.ts";
import { parseConfigText } from "../../src/load-config.ts";

function errorOf(toml: string): string {
  try {
    parseConfigText(toml, "f.toml", {});
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  assert.fail("the configuration was accepted");
}

const backend = (extra: string) => `[[backends]]\nname = "a"\nurl = "http://127.0.0.1:1"\ntype = "vllm"\n${extra}\n`;

describe("configuration errors", () => {
  it("name TOML's special values by what they are", () => {
    assert.match(errorOf("[server]\nport = inf\n"), /server\.port: expected a number, got infinity$/);
    assert.match(errorOf("[server]\nport = -inf\n"), /got -infinity$/);
    assert.match(errorOf("[server]\nport = nan\n"), /got nan \(not a number\)$/);
    assert.match(errorOf("[server]\nport = 1979-05-27\n"), /server\.port: expected a number, got a date$/);
    assert.match(
      errorOf("[server]\nhost = 1979-05-27T07:32:00Z\n"),
      /server\.host: expected a string, got a date-time$/,
    );
    assert.match(errorOf("[server]\nhost = 07:32:00\n"), /got a time$/);
    assert.match(errorOf("[server]\nrequest_timeout_seconds = -inf\n"), /got -infinity$/);
  });

  it("never print a value that may be a secret", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/), fc.integer({ min: 10_000_000 }), (secret, number) => {
        const cases = [
          backend(`api_key_env = ${number}`),
          backend(`api_key_env = "sk-${secret}"`),
          backend(`api_key_env = ["sk-${secret}"]`),
          backend(`tier = "sk-${secret}"`),
          backend(`api_key = "sk-${secret}"`),
          `[server]\nport = "sk-${secret}"\n`,
          `[[backends]]\nname = "a"\nurl = "https://user:sk-${secret}@x y"\ntype = "vllm"\n`,
          `[[backends]]\nname = "a"\nurl = "ftp://h/?key=sk-${secret}"\ntype = "vllm"\n`,
        ];
        for (const toml of cases) {
          const message = errorOf(toml);
          assert.ok(!message.includes(secret), `${message} shows the secret`);
          assert.ok(!message.includes(String(number)), `${message} shows the number`);
        }
      }),
      { numRuns: 30 },
    );
  });

  it("still echo short enum values, so that a typo is visible", () => {
    assert.match(errorOf(backend("").replace('"vllm"', '"vlm"')), /"vlm" is not allowed \(did you mean "vllm"\?\)/);
  });
});
