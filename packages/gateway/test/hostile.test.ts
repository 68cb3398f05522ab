import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, withTimeout } from "@switchboard/testkit";
import fc from "fast-check";
import { backendToml, Closers, type HttpResult, hello, http, postJson, startTestGateway } from "./helpers.ts";

const LIMIT = 64 * 1024;

function assertEnvelope(response: HttpResult, status: number | number[]): void {
  const allowed = Array.isArray(status) ? status : [status];
  assert.ok(
    allowed.includes(response.status),
    `status ${response.status} not in ${allowed}: ${response.text.slice(0, 200)}`,
  );
  const body = JSON.parse(response.text);
  assert.equal(typeof body.error.message, "string");
  assert.equal(typeof body.error.type, "string");
  assert.ok("param" in body.error && "code" in body.error, "the envelope has param and code");
  assert.ok(response.headers["x-request-id"], "every error carries X-Request-Id");
}

/** Resolves when the server closes a connection that sent `data` and then went quiet; returns what the server wrote. */
function closedAfter(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(data));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString();
    });
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
  });
}

describe("hostile input never crashes the process or hangs a connection", () => {
  let upstream: FakeLlmServer;
  let url: string;
  let port: number;
  const closers = new Closers();

  before(async () => {
    upstream = await startFakeOpenAI({ models: [{ id: "m" }] });
    const gateway = await startTestGateway(
      `[server]\nport = 0\nbody_limit_bytes = ${LIMIT}\nclient_timeout_seconds = 1\n` +
        `[routing.aliases]\n"alias-m" = "m"\n${backendToml("b", upstream.url)}`,
      closers,
    );
    url = gateway.url;
    port = Number(new URL(url).port);
  });
  after(async () => {
    await closers.closeAll();
    await upstream.close();
  });

  it("malformed JSON: 400 invalid_json", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        fc.pre(!valid);
        const response = await http(`${url}/v1/chat/completions`, { method: "POST", body: text });
        assertEnvelope(response, 400);
        assert.equal(JSON.parse(response.text).error.code, "invalid_json");
      }),
      { numRuns: 150 },
    );
  });

  it("any JSON value that is not a valid request: 400 naming the field", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        for (const path of ["/v1/chat/completions", "/v1/embeddings"]) {
          const response = await http(`${url}${path}`, { method: "POST", body: JSON.stringify(value) });
          assertEnvelope(response, [400, 404]);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("wrong types in known fields: 400 with param", async () => {
    const anything = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer()),
      fc.object(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          field: fc.constantFrom("model", "messages", "stream", "temperature", "max_tokens", "stop", "role", "content"),
          value: anything,
        }),
        async ({ field, value }) => {
          const body: Record<string, unknown> = hello("m");
          const message: Record<string, unknown> = { role: "user", content: "x" };
          if (field === "role" || field === "content") {
            message[field] = value;
            body["messages"] = [message];
          } else {
            body[field] = value;
          }
          const response = await postJson(`${url}/v1/chat/completions`, body);
          if (response.status === 200) return; // the generated value happened to be valid
          assertEnvelope(response, [400, 404]);
          if (response.status === 400) assert.ok(JSON.parse(response.text).error.param, "400 names the parameter");
        },
      ),
      { numRuns: 200 },
    );
  });

  it("wrong content types: 415", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/xml",
          "image/png",
        ),
        async (type) => {
          const response = await http(`${url}/v1/chat/completions`, {
            method: "POST",
            body: JSON.stringify(hello("m")),
            headers: { "content-type": type },
          });
          assertEnvelope(response, 415);
          assert.equal(JSON.parse(response.text).error.code, "unsupported_media_type");
        },
      ),
      { numRuns: 20 },
    );
  });

  it("bodies over the limit: 413 in the envelope", async () => {
    const big = JSON.stringify(hello("m", { messages: [{ role: "user", content: "x".repeat(LIMIT) }] }));
    const response = await http(`${url}/v1/chat/completions`, { method: "POST", body: big });
    assertEnvelope(response, 413);
    assert.equal(JSON.parse(response.text).error.code, "request_too_large");
  });

  it("deeply nested and huge JSON within the limit: 400 naming the limit, before it is parsed", async () => {
    const nested = (depth: number) =>
      `{"model":"alias-m","messages":[{"role":"user","content":"x"}],"tools":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const deep = await http(`${url}/v1/chat/completions`, { method: "POST", body: nested(20_000) });
    assertEnvelope(deep, 400);
    assert.equal(deep.json().error.code, "json_too_deep");
    assert.match(deep.json().error.message, /more than 128 levels deep/);
    const deepObjects = `{"model":"m","input":"x","user":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}`;
    assert.equal(
      (await http(`${url}/v1/embeddings`, { method: "POST", body: deepObjects })).json().error.code,
      "json_too_deep",
    );
    // Nesting within the limit is forwarded, re-serialised under an alias.
    const within = await http(`${url}/v1/chat/completions`, { method: "POST", body: nested(120) });
    assert.equal(within.status, 200, within.text);
    const wide = `{"model":"m","messages":[{"role":"user","content":"x"}],"metadata":{${Array.from({ length: 2000 }, (_, i) => `"k${i}":1`).join(",")}}}`;
    const tooWide = await http(`${url}/v1/chat/completions`, { method: "POST", body: wide });
    assert.equal(tooWide.json().error.code, "json_too_many_keys", tooWide.text);
    assert.match(tooWide.json().error.message, /more than 1000 keys/);
    const stops = await postJson(
      `${url}/v1/chat/completions`,
      hello("m", { stop: Array.from({ length: 5000 }, () => "x") }),
    );
    assertEnvelope(stops, 400);
    assert.equal(stops.json().error.param, "stop");
    assert.equal(
      (await postJson(`${url}/v1/chat/completions`, hello("m", { stop: ["a", "b", "c", "d"] }))).status,
      200,
    );
    const wrongItems = JSON.stringify(
      hello("m", { messages: Array.from({ length: 1500 }, () => ({ role: "user", content: 1 })) }),
    );
    assertEnvelope(await http(`${url}/v1/chat/completions`, { method: "POST", body: wrongItems }), 400);
  });

  it("unknown routes and methods: 404 in the envelope", async () => {
    assertEnvelope(await http(`${url}/v1/nothing`), 404);
    assertEnvelope(await http(`${url}/v1/chat/completions`), 404);
  });

  it("observability routes: any query to /v1/history is a 200 or a 400 in the envelope, never a crash", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), async (limit) => {
        const response = await http(`${url}/v1/history?limit=${encodeURIComponent(limit)}`);
        if (response.status === 200) assert.ok(Array.isArray(response.json().data));
        else assertEnvelope(response, 400);
      }),
      { numRuns: 100 },
    );
    for (const path of ["/metrics", "/", "/dashboard/app.js", "/v1/history?limit=1&limit=2"]) {
      const response = await http(`${url}${path}`);
      assert.ok(response.status === 200 || response.status === 400, `${path}: ${response.status}`);
    }
  });

  it("lifecycle routes: any JSON body or name gets a designed status in the envelope, never a crash", async () => {
    const names = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("__proto__", "constructor", "toString"));
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), names, async (body, name) => {
        for (const path of ["/v1/models/load", "/v1/models/migrate"]) {
          const response = await http(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });
          assertEnvelope(response, response.status);
          assert.ok([400, 404, 409, 501].includes(response.status), `${path}: ${response.status}`);
        }
        const named = await postJson(`${url}/v1/models/load`, { model: name || "m", backend: name || "b" });
        assert.ok([400, 404, 501].includes(named.status), `load on ${JSON.stringify(name)}: ${named.status}`);
        const unload = await http(
          `${url}/v1/models/${encodeURIComponent(name || "m")}?backend=${encodeURIComponent(name)}`,
          {
            method: "DELETE",
          },
        );
        assert.ok([400, 404, 501].includes(unload.status), `unload: ${unload.status}`);
        const operation = await http(`${url}/v1/models/operations/${encodeURIComponent(name || "x")}`);
        assert.equal(operation.status, 404);
      }),
      { numRuns: 60 },
    );
  });

  it("slow clients are cut off: headers that never finish, a body that never arrives", async () => {
    const partialHeaders = await withTimeout(
      closedAfter(port, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"),
      10_000,
      "the server closing a half-sent request",
    );
    assert.ok(partialHeaders === "" || partialHeaders.startsWith("HTTP/1.1 408"), partialHeaders);
    const partialBody = await withTimeout(
      closedAfter(
        port,
        'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mo',
      ),
      10_000,
      "the server closing a request whose body never arrives",
    );
    assert.ok(partialBody === "" || partialBody.startsWith("HTTP/1.1 408"), partialBody);
  });

  it("after all that the process still serves", async () => {
    const response = await postJson(`${url}/v1/chat/completions`, hello("m"));
    assert.equal(response.status, 200);
    assert.equal((await http(`${url}/health`)).status, 200);
  });
});
