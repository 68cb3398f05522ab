// Large bodies for translated backends are parsed and re-encoded on the translation thread. The thread must give what
// the same translation gives on the event loop, byte for byte, from the TypeScript sources (tests, through tsx) and
// from the compiled dist/ (what the bins run); refusals and faults come back as answers, never as a crash.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { createBackend } from "../../src/backends/create.ts";
import type { RequestTranslation, TranslationReply } from "../../src/backends/request-translation.ts";
import { OFF_THREAD_BYTES } from "../../src/backends/translated-backend.ts";
import { ClientGone, PendingCall, type ResponseSink, type UpstreamCall } from "../../src/backends/upstream-call.ts";
import { parseConfigText } from "../../src/load-config.ts";
import type { ChatBody } from "../../src/request/chat.ts";

type OffThread = (raw: Buffer, translation: RequestTranslation<unknown>) => Promise<TranslationReply>;

const builds = {
  sources: new URL("../../src/backends/", import.meta.url),
  "compiled dist/": new URL("../../dist/backends/", import.meta.url),
};

async function load(base: URL, ext: string) {
  const offThread = (await import(new URL(`translate-off-thread${ext}`, base).href)) as {
    translateOffThread: OffThread;
  };
  const anthropic = await import(new URL(`anthropic/request${ext}`, base).href);
  const google = await import(new URL(`google/request${ext}`, base).href);
  const translations: RequestTranslation<unknown>[] = [
    {
      translate: anthropic.anthropicNativeRequest,
      module: anthropic.REQUEST_MODULE,
      exportName: "anthropicNativeRequest",
      options: { defaultMaxTokens: 99 },
    },
    {
      translate: google.googleNativeRequest,
      module: google.REQUEST_MODULE,
      exportName: "googleNativeRequest",
      options: { version: "v1" },
    },
  ];
  return { translateOffThread: offThread.translateOffThread, translations };
}

const text = fc.string({ unit: "binary", maxLength: 40 });
const request = fc.record({
  model: fc.constantFrom("m", "models/x y", "ünï"),
  messages: fc.array(
    fc.record({ role: fc.constantFrom("system", "user", "assistant"), content: text.map((t) => t.repeat(2_000)) }),
    { minLength: 1, maxLength: 4 },
  ),
  stream: fc.boolean(),
  temperature: fc.double({ min: 0, max: 2, noNaN: true }),
});

for (const [build, base] of Object.entries(builds)) {
  describe(`translation thread (${build})`, () => {
    const ext = build === "sources" ? ".ts" : ".js";

    it("answers what the translation gives on the event loop, byte for byte, and the options answers need", async () => {
      const { translateOffThread, translations } = await load(base, ext);
      await fc.assert(
        fc.asyncProperty(request, fc.constantFrom(...translations), async (body, translation) => {
          const raw = Buffer.from(JSON.stringify(body));
          const reply = await translateOffThread(raw, translation);
          assert.ok("native" in reply, JSON.stringify(reply));
          const here = translation.translate(JSON.parse(raw.toString()) as ChatBody, translation.options);
          assert.equal(Buffer.from(reply.native.body).toString(), here.body);
          assert.equal(reply.native.path, here.path);
          assert.equal(reply.native.stream, here.stream);
          assert.deepEqual(reply.options, { model: body.model, stream: body.stream });
        }),
        { numRuns: 30 },
      );
    });

    it("gives a refusal back as OpenAI's envelope, and a fault as a message", async () => {
      const { translateOffThread, translations } = await load(base, ext);
      const body = Buffer.from(JSON.stringify({ model: "m", messages: [{ role: "function", content: "x" }] }));
      const refused = await translateOffThread(body, translations[0]!);
      assert.deepEqual(refused, {
        refused: {
          error: {
            message: "function messages are not supported by anthropic backends; use tools",
            type: "invalid_request_error",
            param: "messages[0].role",
            code: "unsupported_parameter",
          },
        },
      });
      const missing = { ...translations[0]!, module: new URL("no-such-module.js", base).href };
      const fault = await translateOffThread(body, missing);
      assert.ok("failed" in fault && /no-such-module/.test(fault.failed), JSON.stringify(fault));
    });
  });
}

function translatedBackends() {
  const config = parseConfigText(
    `[server]\nport = 0\n[[backends]]\nname = "a"\nurl = "http://127.0.0.1:9"\ntype = "anthropic"\napi_key_env = "K"\n` +
      `[[backends]]\nname = "g"\nurl = "http://127.0.0.1:9"\ntype = "google"\napi_key_env = "K"\n`,
    "test.toml",
    { K: "k" },
  );
  return config.backends.map((settings) =>
    createBackend(settings, {
      limits: { requestTimeoutMs: 1_000, answerLimitBytes: 1024 * 1024 },
      onUsage() {},
      tokens: { prompt: async () => 0, text: async () => 0 },
    }),
  );
}

describe("translated backends and pending calls", () => {
  it("names, for every translated type, the very function its translation thread imports", async () => {
    for (const backend of translatedBackends()) {
      const { settings, translation } = backend as unknown as {
        settings: { type: string };
        translation: RequestTranslation<unknown>;
      };
      const module = (await import(translation.module)) as Record<string, unknown>;
      assert.equal(module[translation.exportName], translation.translate, settings.type);
      assert.ok(fileURLToPath(translation.module).endsWith(".ts"));
      await backend.close();
    }
  });

  it("a large body's call is pending until translated; aborted meanwhile, the sink hears ClientGone once", async () => {
    for (const backend of translatedBackends()) {
      const heard: Error[] = [];
      const sink: ResponseSink = { start() {}, data() {}, end() {}, error: (error) => heard.push(error) };
      const body = Buffer.from(
        JSON.stringify({ model: "m", messages: [{ role: "user", content: "x".repeat(OFF_THREAD_BYTES) }] }),
      );
      const call = backend.chat(body, { requestId: "r1" }, sink);
      assert.ok((call as unknown) instanceof PendingCall);
      call.abort();
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(heard.length, 1);
      assert.ok(heard[0] instanceof ClientGone, "not a connection error: nothing was sent");
      await backend.close();
    }
  });

  it("a pending call holds pause and resume until it begins, and passes abort on once", () => {
    const heard: Error[] = [];
    const sink: ResponseSink = { start() {}, data() {}, end() {}, error: (error) => heard.push(error) };
    const pending = new PendingCall(sink);
    pending.pause();
    const calls: string[] = [];
    const real: UpstreamCall = {
      aborted: false,
      abort: () => calls.push("abort"),
      pause: () => calls.push("pause"),
      resume: () => calls.push("resume"),
    };
    pending.begin(real);
    pending.resume();
    pending.abort();
    pending.abort();
    assert.deepEqual(calls, ["pause", "resume", "abort"], "held while pending, passed on once begun");
    assert.deepEqual(heard, [], "a begun call reports its own end");

    const early = new PendingCall(sink);
    early.abort();
    early.abort();
    assert.equal(early.aborted, true);
    // (heard was narrowed to never[] by the deepEqual above)
    const after = heard as Error[];
    assert.equal(after.length, 1);
    assert.ok(after[0] instanceof ClientGone);
  });
});
