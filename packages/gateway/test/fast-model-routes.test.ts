// POST /v1/chat/completions and /v1/embeddings are served in front of fastify for the ordinary request
// (src/http/fast-model-routes.ts). Which requests it takes, and that a request answered there gets exactly what
// fastify's route gives the same request: status, headers, body, access line.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import fc from "fast-check";
import pino from "pino";
import { request } from "undici";
import { type RunningGateway, startGateway } from "../src/gateway.ts";
import { fastModelRoutes } from "../src/http/fast-model-routes.ts";
import type { ModelRouteServer } from "../src/http/model-route.ts";
import { JsonParseWorker } from "../src/http/parse-worker.ts";
import { parseConfigText } from "../src/load-config.ts";
import { backendToml, withOwnStateFiles } from "./helpers.ts";

const CHAT = "/v1/chat/completions";
const BODY = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] });

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await request(url, { method: "POST", body, headers, headersTimeout: 15_000, bodyTimeout: 15_000 });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

describe("which requests the fast path takes", () => {
  const served: string[] = [];
  let server: Server;
  let url: string;
  const worker = new JsonParseWorker();
  before(async () => {
    let closing = false;
    const serve: ModelRouteServer = async (_id, _request, res, parsed) => {
      res.end(JSON.stringify(parsed?.value));
    };
    const fast = fastModelRoutes({
      bodyLimit: 1000,
      clientTimeoutMs: 5_000,
      parseWorker: worker,
      requestIdOf: () => "id",
      track: () => {},
      gate: undefined,
      routes: new Map([
        ["/v1/chat/completions", { endpoint: "chat", serve }],
        ["/v1/embeddings", { endpoint: "embeddings", serve }],
      ]),
      logger: pino({ level: "silent" }),
      isClosing: () => closing,
    });
    server = createServer((req: IncomingMessage, res) => {
      if (req.headers["x-close"] === "1") closing = true;
      if (fast(req, res)) served.push("fast");
      else {
        served.push("fastify");
        req.resume();
        req.on("end", () => res.end("{}"));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await worker.close();
  });

  const pathOf = async (path: string, body: string, headers: Record<string, string>) => {
    served.length = 0;
    await post(`${url}${path}`, body, headers);
    return served[0];
  };
  const json = { "content-type": "application/json" };

  it("takes the ordinary request, as clients send it", async () => {
    assert.equal(await pathOf("/v1/chat/completions", BODY, json), "fast");
    assert.equal(await pathOf("/v1/embeddings", BODY, json), "fast");
    assert.equal(
      await pathOf("/v1/chat/completions", BODY, { "content-type": "application/json; charset=utf-8" }),
      "fast",
    );
  });

  it("leaves everything else to fastify", async () => {
    const cases: [string, string, Record<string, string>][] = [
      ["/v1/chat/completions?x=1", BODY, json],
      ["/v1/embeddings?x=1", BODY, json],
      ["/v1/models", BODY, json],
      ["/v1/messages", BODY, json],
      ["/v1/chat/completions", BODY, { "content-type": "application/json; charset=UTF-8" }],
      ["/v1/chat/completions", BODY, { "content-type": "text/plain" }],
      ["/v1/chat/completions", "x".repeat(1001), json],
    ];
    for (const [path, body, headers] of cases) {
      assert.equal(await pathOf(path, body, headers), "fastify", `${path} ${JSON.stringify(headers)}`);
    }
    // A body without Content-Length (chunked) and an empty one.
    served.length = 0;
    await request(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: json,
      body: Readable.from([Buffer.from(BODY)]),
    }).then((r) => r.body.text());
    assert.equal(served[0], "fastify");
    assert.equal(await pathOf("/v1/chat/completions", "", json), "fastify");
    // Expect: 100-continue (undici will not send it).
    served.length = 0;
    await new Promise<void>((resolve, reject) => {
      const sent = httpRequest(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...json, "content-length": Buffer.byteLength(BODY), expect: "100-continue" },
      });
      sent.on("continue", () => sent.end(BODY));
      sent.on("response", (response) => response.resume().on("end", resolve));
      sent.on("error", reject);
    });
    assert.equal(served[0], "fastify");
  });

  it("leaves requests to fastify once the server is closing (its 503)", async () => {
    assert.equal(await pathOf("/v1/chat/completions", BODY, { ...json, "x-close": "1" }), "fastify");
  });
});

const MASTER = "master-key-for-the-fast-path-test";
const stateDir = mkdtempSync(join(tmpdir(), "gateway-fast-routes-"));
after(() => rmSync(stateDir, { recursive: true, force: true }));

/** Who a request says it is, when [auth] is on: resolved to headers once the keys exist. */
type Caller = "none" | "master" | "key" | "other-model-key" | "wrong" | "anthropic-client";

const EQUIVALENCE_CASES: { title: string; toml: string; callers: Caller[] }[] = [
  { title: "without [auth]", toml: "", callers: ["none"] },
  {
    title: "with [auth] and virtual keys",
    toml: `[auth]\nmaster_key_env = "MASTER"\n[state]\npath = "${join(stateDir, "state.json")}"\n`,
    callers: ["none", "master", "key", "other-model-key", "wrong", "anthropic-client"],
  },
];

for (const { title, toml: extraToml, callers } of EQUIVALENCE_CASES) {
  describe(`a chat request answered by the fast path and by fastify's route, ${title}`, () => {
    let fake: FakeLlmServer;
    let gateway: RunningGateway;
    const lines: string[] = [];
    const callerHeaders = new Map<Caller, Record<string, string>>([["none", {}]]);
    before(async () => {
      fake = await startFakeOpenAI({
        models: [{ id: "m" }, { id: "e", capabilities: ["embedding"], embeddingDimensions: 4 }],
      });
      const toml = `[server]\nport = 0\n[discovery]\nenabled = false\n${backendToml("box", fake.url, "vllm")}[routing.aliases]\n"alias" = "m"\n${extraToml}`;
      const sink = { write: (line: string) => void lines.push(line) };
      gateway = await startGateway(
        parseConfigText(withOwnStateFiles(toml), "fast.toml", { MASTER }),
        pino({ level: "info" }, sink),
      );
      if (!callers.includes("master")) return;
      const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
      const createKey = async (name: string, models: string[]) => {
        const made = await post(`${gateway.url}/v1/keys`, JSON.stringify({ name, models }), {
          ...bearer(MASTER),
          "content-type": "application/json",
        });
        assert.equal(made.status, 201, made.text);
        return (JSON.parse(made.text) as { key: string }).key;
      };
      const key = await createKey("team", ["m", "alias", "missing", "e"]);
      callerHeaders.set("master", bearer(MASTER));
      callerHeaders.set("key", bearer(key));
      callerHeaders.set("other-model-key", bearer(await createKey("other", ["elsewhere"])));
      callerHeaders.set("wrong", bearer("sk-not-a-key"));
      callerHeaders.set("anthropic-client", { "x-api-key": "sk-not-a-key", "anthropic-version": "2023-06-01" });
    });
    after(async () => {
      await gateway.close();
      await fake.close();
    });
    /** The access line of a request, without its time and duration. */
    const accessLine = async (requestId: string) => {
      let found: Record<string, unknown> | undefined;
      await waitUntil(
        () => {
          const line = lines.find((text) => text.includes(`"requestId":"${requestId}"`) && text.includes('"method"'));
          if (line) found = JSON.parse(line) as Record<string, unknown>;
          return found !== undefined;
        },
        { timeoutMs: 10_000 },
      );
      const { time: _, ms: __, msg, ...rest } = found!;
      return { ...rest, msg: String(msg).replace(/ [0-9.]+ ms/, " _ ms") };
    };
    /** What may differ between two answers to the same request: the date, the fake's ids and times. */
    const normalise = (text: string) =>
      text.replace(/"id":"chatcmpl-[^"]*"/g, '"id":"_"').replace(/"created":\d+/g, '"created":0');
    const answerOf = async (
      path: string,
      body: string,
      headers: Record<string, string>,
      contentType: string,
      requestId: string,
    ) => {
      const answer = await post(`${gateway.url}${path}`, body, {
        ...headers,
        "content-type": contentType,
        "x-request-id": requestId,
      });
      // The fake's ids differ in length from one answer to the next: the length is checked here, not compared.
      const { date: _, "content-length": length, ...rest } = answer.headers;
      if (length !== undefined) assert.equal(Number(length), Buffer.byteLength(answer.text));
      return { status: answer.status, headers: rest, body: normalise(answer.text), line: await accessLine(requestId) };
    };

    const message = fc.record({
      role: fc.constantFrom("user", "system", "assistant", "tool", 7),
      content: fc.string(),
    });
    const chatBodies = fc.oneof(
      fc
        .record(
          {
            model: fc.constantFrom("m", "alias", "missing", "", 3),
            messages: fc.oneof(fc.array(message, { maxLength: 3 }), fc.constant("x")),
            stream: fc.boolean(),
            max_tokens: fc.oneof(fc.integer({ min: -2, max: 100 }), fc.constant("10")),
            temperature: fc.double({ noNaN: true }),
          },
          { requiredKeys: ["messages"] },
        )
        .map((value) => JSON.stringify(value)),
      fc.json(),
      fc.string({ maxLength: 40 }),
      fc.constant("[".repeat(200)),
    );
    const embeddingsBodies = fc.oneof(
      fc
        .record(
          {
            model: fc.constantFrom("e", "m", "missing", 3),
            input: fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.constant(7)),
            encoding_format: fc.constantFrom("float", "base64", "x"),
          },
          { requiredKeys: ["input"] },
        )
        .map((value) => JSON.stringify(value)),
      fc.json(),
    );
    const requests = fc.oneof(
      chatBodies.map((body) => ({ path: "/v1/chat/completions", body })),
      embeddingsBodies.map((body) => ({ path: "/v1/embeddings", body })),
    );
    const headerSets = fc.record(
      {
        "x-gateway-priority": fc.constantFrom("high", "normal", "x"),
        "x-gateway-flexible": fc.constantFrom("true", "false"),
        traceparent: fc.constantFrom("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "bad"),
      },
      { requiredKeys: [] },
    );

    it("gets the same status, headers, body and access line", async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          requests,
          headerSets,
          fc.constantFrom(...callers),
          async ({ path, body }, controls, caller) => {
            n += 1;
            if (body.length === 0) return;
            const headers = { ...controls, ...callerHeaders.get(caller) };
            const fast = await answerOf(path, body, headers, "application/json", `fast-${n}`);
            const routed = await answerOf(path, body, headers, "application/json; charset=UTF-8", `routed-${n}`);
            assert.equal(fast.status, routed.status);
            assert.deepEqual(
              { ...fast.headers, "x-request-id": "_" },
              { ...routed.headers, "x-request-id": "_" },
              "headers",
            );
            assert.equal(fast.headers["x-request-id"], `fast-${n}`);
            assert.equal(fast.body, routed.body);
            assert.deepEqual({ ...fast.line, requestId: "_" }, { ...routed.line, requestId: "_" });
          },
        ),
        {
          numRuns: 80,
          // Answers relayed from the backend, whole and streamed, through an alias, and embeddings.
          examples: [
            [{ path: CHAT, body: BODY }, {}, callers.includes("key") ? "key" : "none"],
            [
              { path: CHAT, body: `${BODY.slice(0, -1)},"stream":true}` },
              { "x-gateway-priority": "high" },
              callers.at(-1)!,
            ],
            [{ path: CHAT, body: BODY.replace('"m"', '"alias"') }, {}, callers.includes("master") ? "master" : "none"],
            [
              { path: "/v1/embeddings", body: '{"model":"e","input":["a","b"]}' },
              {},
              callers.includes("key") ? "key" : "none",
            ],
          ],
        },
      );
    });
  });
}
