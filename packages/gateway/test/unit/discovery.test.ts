import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { parseServiceType } from "../../src/discovery/mdns.ts";
import { backendOf } from "../../src/discovery/service-backend.ts";

const service = (overrides: Partial<Parameters<typeof backendOf>[0]> = {}) => ({
  name: "GPU Box",
  type: "ollama",
  port: 11434,
  addresses: ["fe80::1", "192.168.1.20"],
  txt: {},
  ...overrides,
});

describe("what an mDNS service becomes", () => {
  it("takes the type from TXT, else from the service type, and the first IPv4 address", () => {
    assert.deepEqual(backendOf(service()), { name: "gpu-box", type: "ollama", url: "http://192.168.1.20:11434" });
    assert.deepEqual(backendOf(service({ type: "llm", txt: { type: "llama.cpp" } })), {
      name: "gpu-box",
      type: "llamacpp",
      url: "http://192.168.1.20:11434",
    });
    assert.equal((backendOf(service({ type: "llm" })) as { type: string }).type, "generic");
    assert.deepEqual((backendOf(service({ addresses: ["fd00::7"] })) as { url: string }).url, "http://[fd00::7]:11434");
  });

  it("refuses cloud types, missing addresses and ports, and unusable names", () => {
    assert.match(backendOf(service({ txt: { type: "openai" } })) as string, /not a local backend type/);
    assert.match(backendOf(service({ addresses: [] })) as string, /no address/);
    assert.match(backendOf(service({ port: 0 })) as string, /no valid port/);
    assert.match(backendOf(service({ name: "∅∅∅" })) as string, /no usable name/);
  });

  it("turns any name and TXT into a safe backend name or a reason, never a throw", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.dictionary(fc.string(), fc.jsonValue()), (name, txt) => {
        const result = backendOf(service({ name, txt }));
        if (typeof result !== "string") assert.match(result.name, /^[a-z0-9.-]{1,63}$/);
      }),
    );
  });

  it("reads Nexus's service type strings", () => {
    assert.deepEqual(parseServiceType("_ollama._tcp.local"), { type: "ollama", protocol: "tcp" });
    assert.deepEqual(parseServiceType("_llm._tcp.local."), { type: "llm", protocol: "tcp" });
    assert.equal(parseServiceType("ollama"), undefined);
    assert.equal(parseServiceType("_x._sctp.local"), undefined);
  });
});
