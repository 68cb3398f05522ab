// Every client API's routes under hostile bodies (fast-check): whatever the JSON, the answer is a designed status
// below 500 in that API's error envelope, and the gateway keeps serving. The backends speak each API natively, so the
// bodies that pass validation also reach the paths that forward a client's request as written.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FakeLlmServer,
  startFakeAnthropic,
  startFakeGoogle,
  startFakeOllama,
  startFakeOpenAI,
} from "@switchboard/testkit";
import fc from "fast-check";
import { backendToml, Closers, http, startTestGateway } from "../helpers.ts";

const ROUTES = [
  "/v1/messages",
  "/v1/messages/count_tokens",
  "/v1/responses",
  "/v1/completions",
  "/api/chat",
  "/api/generate",
  "/api/show",
  "/api/embed",
  "/v1beta/models/m:generateContent",
  "/v1beta/models/m:streamGenerateContent?alt=sse",
  "/v1beta/models/m:countTokens",
  "/v1beta/models/m:embedContent",
  "/v1beta/models/m:batchEmbedContents",
];

/** The error text of each API's envelope, when the answer is one. */
function errorText(body: unknown): unknown {
  if (!body || typeof body !== "object") return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === "string") return error; // Ollama's
  return error && typeof error === "object" ? (error as { message?: unknown }).message : undefined;
}

describe("client APIs under hostile bodies", () => {
  let openai: FakeLlmServer;
  let claude: FakeLlmServer;
  let ollama: FakeLlmServer;
  let google: FakeLlmServer;
  let url: string;
  const closers = new Closers();

  before(async () => {
    openai = await startFakeOpenAI({ models: [{ id: "m" }], apiKey: "sk-o" });
    claude = await startFakeAnthropic({ models: [{ id: "m" }], apiKey: "sk-a" });
    ollama = await startFakeOllama({ models: [{ id: "m", capabilities: ["completion", "insert"] }] });
    google = await startFakeGoogle({ models: [{ id: "m" }], apiKey: "g" });
    url = (
      await startTestGateway(
        backendToml("openai", openai.url, "openai", 'api_key_env = "O"') +
          backendToml("claude", claude.url, "anthropic", 'api_key_env = "A"') +
          backendToml("box", ollama.url, "ollama") +
          backendToml("gemini", google.url, "google", 'api_key_env = "G"'),
        closers,
        { O: "sk-o", A: "sk-a", G: "g" },
      )
    ).url;
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([openai.close(), claude.close(), ollama.close(), google.close()]);
  });

  it("answer any JSON with a designed status and a message, never a 5xx of their own", async () => {
    const value = fc.oneof(
      fc.anything(),
      fc.record(
        {
          model: fc.oneof(fc.constant("m"), fc.anything()),
          messages: fc.oneof(fc.anything(), fc.array(fc.record({ role: fc.anything(), content: fc.anything() }))),
          input: fc.anything(),
          prompt: fc.anything(),
          suffix: fc.anything(),
          max_tokens: fc.anything(),
          store: fc.oneof(fc.constant(false), fc.anything()),
          stream: fc.boolean(),
          tools: fc.oneof(
            fc.anything(),
            fc.array(fc.record({ type: fc.anything(), name: fc.anything() })),
            fc.array(fc.record({ functionDeclarations: fc.anything(), googleSearch: fc.anything() })),
          ),
          contents: fc.oneof(
            fc.anything(),
            fc.array(
              fc.record({
                role: fc.oneof(fc.constantFrom("user", "model"), fc.anything()),
                parts: fc.oneof(
                  fc.anything(),
                  fc.array(
                    fc.record(
                      {
                        text: fc.anything(),
                        functionCall: fc.anything(),
                        functionResponse: fc.anything(),
                        inlineData: fc.anything(),
                        thoughtSignature: fc.anything(),
                      },
                      { requiredKeys: [] },
                    ),
                  ),
                ),
              }),
            ),
          ),
          systemInstruction: fc.anything(),
          content: fc.oneof(fc.anything(), fc.record({ parts: fc.array(fc.record({ text: fc.anything() })) })),
          requests: fc.oneof(
            fc.anything(),
            fc.array(fc.record({ content: fc.anything(), outputDimensionality: fc.anything() }), { maxLength: 3 }),
          ),
          generationConfig: fc.anything(),
          toolConfig: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), value, async (route, body) => {
        const answer = await http(`${url}${route}`, {
          method: "POST",
          headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
          body: JSON.stringify(body) ?? "null",
        });
        // A backend's own answer (a 4xx relayed as written, or a 502 when every backend refused) is not the
        // gateway's failure; a 500 would be.
        assert.notEqual(answer.status, 500, `${route} ${JSON.stringify(body)}: ${answer.text}`);
        assert.ok(answer.status < 600);
        if (answer.status >= 400 && answer.status !== 502) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(answer.text);
          } catch {
            assert.fail(`${route}: a ${answer.status} that is not JSON: ${answer.text}`);
          }
          assert.equal(typeof errorText(parsed), "string", `${route}: ${answer.text}`);
        }
      }),
      { numRuns: 150 },
    );
    assert.equal((await http(`${url}/health`)).status, 200, "still serving");
  });
});
