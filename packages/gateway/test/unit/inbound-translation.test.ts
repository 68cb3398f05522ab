// Properties of the inbound translations: every message and every tool call of an Anthropic, Responses, Ollama or
// Gemini conversation reaches the pipeline's chat request, in order; the stream translators never lose text or
// arguments.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { fromMessagesRequest } from "../../src/inbound/anthropic/request.ts";
import { AnthropicStream } from "../../src/inbound/anthropic/stream.ts";
import { fromCompletionRequest } from "../../src/inbound/completions/request.ts";
import { fromGenerateContent } from "../../src/inbound/gemini/request.ts";
import { GeminiStream } from "../../src/inbound/gemini/stream.ts";
import { fromOllamaChat, fromOllamaGenerate } from "../../src/inbound/ollama/request.ts";
import { ChunkReader } from "../../src/inbound/openai-answer.ts";
import { fromResponsesRequest } from "../../src/inbound/responses/request.ts";
import { MemoryResponseStore } from "../../src/inbound/responses/store.ts";
import type { ChatBody, ChatMessage } from "../../src/request/chat.ts";
import { ApiError } from "../../src/request/errors.ts";
import { chatRequirements } from "../../src/routing/requirements.ts";

/** One turn of a conversation, API-neutral: a text, a set of tool calls, or a tool result. */
type Turn =
  | { kind: "user"; text: string }
  | { kind: "calls"; ids: string[] }
  | { kind: "result"; id: string; text: string };

const text = fc.string({ minLength: 1, maxLength: 20 });
const turn: fc.Arbitrary<Turn> = fc.oneof(
  text.map((value) => ({ kind: "user" as const, text: value })),
  fc
    .uniqueArray(fc.stringMatching(/^call_[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 3 })
    .map((ids) => ({ kind: "calls" as const, ids })),
  fc
    .tuple(fc.stringMatching(/^call_[a-z0-9]{1,6}$/), text)
    .map(([id, value]) => ({ kind: "result" as const, id, text: value })),
);

/** What must survive, in order: user texts, tool call ids, tool results (id and text). */
function expected(turns: Turn[]): string[] {
  return turns.flatMap((t) =>
    t.kind === "user"
      ? [`user:${t.text}`]
      : t.kind === "calls"
        ? t.ids.map((id) => `call:${id}`)
        : [`result:${t.id}:${t.text}`],
  );
}

function seen(messages: ChatMessage[]): string[] {
  return messages.flatMap((message) => {
    if (message.role === "user") {
      const content = message.content;
      return [
        `user:${typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text).join("")}`,
      ];
    }
    if (message.role === "tool") return [`result:${message.tool_call_id}:${String(message.content)}`];
    if (message.role === "assistant") return (message.tool_calls ?? []).map((call) => `call:${call.id}`);
    return [];
  });
}

function body<T>(result: T | ApiError): T {
  assert.ok(!(result instanceof ApiError), result instanceof ApiError ? result.message : "");
  return result as T;
}

describe("inbound translations keep every message and tool call, in order", () => {
  it("Anthropic Messages", () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 12 }), (turns) => {
        const messages = turns.map((t) =>
          t.kind === "user"
            ? { role: "user", content: [{ type: "text", text: t.text }] }
            : t.kind === "calls"
              ? { role: "assistant", content: t.ids.map((id) => ({ type: "tool_use", id, name: "f", input: { id } })) }
              : { role: "user", content: [{ type: "tool_result", tool_use_id: t.id, content: t.text }] },
        );
        const translated = body(fromMessagesRequest({ model: "m", max_tokens: 5, messages }));
        assert.deepEqual(seen(translated.body.messages), expected(turns));
      }),
    );
  });

  it("OpenAI Responses items", () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 12 }), (turns) => {
        const input = turns.flatMap((t): Record<string, unknown>[] =>
          t.kind === "user"
            ? [{ role: "user", content: [{ type: "input_text", text: t.text }] }]
            : t.kind === "calls"
              ? t.ids.map((id) => ({ type: "function_call", call_id: id, name: "f", arguments: "{}" }))
              : [{ type: "function_call_output", call_id: t.id, output: t.text }],
        );
        const translated = body(fromResponsesRequest({ model: "m", input }));
        assert.deepEqual(seen(translated.body.messages), expected(turns));
      }),
    );
  });

  it("Ollama chat (tool results answer their calls by tool_name)", () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 4 }), (texts, calls) => {
        const names = Array.from({ length: calls }, (_, index) => `tool${index}`);
        const messages = [
          ...texts.map((content) => ({ role: "user", content })),
          {
            role: "assistant",
            content: "",
            tool_calls: names.map((name) => ({ function: { name, arguments: { n: name } } })),
          },
          ...[...names].reverse().map((name) => ({ role: "tool", tool_name: name, content: `r-${name}` })),
        ];
        const translated = body(fromOllamaChat({ model: "m", messages })).body as ChatBody;
        const out = translated.messages;
        assert.deepEqual(
          out.slice(0, texts.length).map((m) => m.content),
          texts,
        );
        const assistant = out[texts.length]!;
        const ids = new Map(assistant.tool_calls!.map((call) => [call.function.name, call.id]));
        assert.deepEqual(
          assistant.tool_calls!.map((call) => JSON.parse(call.function.arguments).n),
          names,
        );
        for (const message of out.slice(texts.length + 1)) {
          const name = String(message.content).slice(2);
          assert.equal(message.tool_call_id, ids.get(name), "each result answers the call of its tool");
        }
      }),
    );
  });
});

describe("Gemini's calls and responses, paired by name", () => {
  it("every call gets an id (its own, or one made), and each response takes the id of the call it answers", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.integer({ min: 1, max: 4 }), fc.boolean()), { minLength: 1, maxLength: 6 }),
        (rounds) => {
          const contents: Record<string, unknown>[] = [];
          for (const [question, calls, withIds] of rounds) {
            const names = Array.from({ length: calls }, (_, index) => `tool${index % 2}`);
            contents.push({ role: "user", parts: [{ text: question }] });
            contents.push({
              role: "model",
              parts: names.map((name, index) => ({
                functionCall: { name, args: { index }, ...(withIds ? { id: `given-${index}` } : {}) },
                thoughtSignature: "c2ln",
              })),
            });
            // Answered in their order, by name only (as Gemini's clients do).
            contents.push({
              role: "user",
              parts: names.map((name, index) => ({ functionResponse: { name, response: { index } } })),
            });
          }
          const translated = body(fromGenerateContent({ contents }, "m", false));
          assert.deepEqual(translated.untranslated, []);
          const messages = translated.body.messages;
          for (let at = 0; at < messages.length; at++) {
            const calls = messages[at]!.tool_calls;
            if (calls === undefined) continue;
            const answers = messages.slice(at + 1, at + 1 + calls.length);
            assert.deepEqual(
              answers.map((message) => [message.role, message.tool_call_id, JSON.parse(String(message.content)).index]),
              calls.map((call) => ["tool", call.id, JSON.parse(call.function.arguments).index]),
            );
          }
          assert.equal(
            messages.filter((message) => message.role === "user").length,
            rounds.length,
            "one user message per question",
          );
        },
      ),
    );
  });

  it("Google's own tools, files by URI and cached content are listed for google backends; upper-case types lowered", () => {
    const translated = body(
      fromGenerateContent(
        {
          contents: [
            { parts: [{ text: "hi" }, { fileData: { fileUri: "gs://b/f.pdf", mimeType: "application/pdf" } }] },
          ],
          tools: [
            { googleSearch: {} },
            {
              functionDeclarations: [
                { name: "f", parameters: { type: "OBJECT", properties: { q: { type: "STRING" } } } },
              ],
            },
          ],
          cachedContent: "cachedContents/abc",
        },
        "m",
        false,
      ),
    );
    assert.deepEqual(translated.untranslated, [
      "cachedContent",
      "contents.0.parts.1: a fileData part",
      "tools.0: Google's googleSearch tool",
    ]);
    assert.deepEqual(translated.body.tools, [
      {
        type: "function",
        function: { name: "f", parameters: { type: "object", properties: { q: { type: "string" } } } },
      },
    ]);
  });
});

describe("what only a provider's own API takes", () => {
  it("Responses: hosted and custom tools, their calls and files by id are listed, the rest translated", () => {
    const translated = body(
      fromResponsesRequest({
        model: "m",
        store: false,
        input: [
          {
            role: "user",
            content: [
              { type: "input_text", text: "hi" },
              { type: "input_file", file_id: "file-1" },
            ],
          },
          { type: "web_search_call", id: "ws_1", status: "completed" },
          { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
        ],
        tools: [{ type: "function", name: "f" }, { type: "web_search" }, { type: "custom", name: "apply_patch" }],
        tool_choice: { type: "web_search" },
      }),
    );
    assert.deepEqual(translated.untranslated, [
      'input[0].content[1]: "input_file" by file id',
      'input[1]: a "web_search_call" item',
      'input[2]: a "custom_tool_call" item',
      'tools[1]: the "web_search" tool',
      'tools[2]: the "custom" tool',
      'tool_choice: the "web_search" tool',
    ]);
    assert.deepEqual(translated.body.tools, [{ type: "function", function: { name: "f" } }]);
    assert.deepEqual(translated.body.messages, [{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    assert.deepEqual(body(fromResponsesRequest({ model: "m", input: "plain" })).untranslated, []);
  });

  it("Responses: what is malformed is still refused", () => {
    for (const bad of [{ tools: [{ name: "f" }] }, { input: [{ type: 5 }] }, { tool_choice: 5 }]) {
      assert.ok(fromResponsesRequest({ model: "m", input: "x", ...bad }) instanceof ApiError, JSON.stringify(bad));
    }
  });

  it("Ollama generate: a suffix, raw or a template", () => {
    const only = (extra: Record<string, unknown>) =>
      body(fromOllamaGenerate({ model: "m", prompt: "p", ...extra })).nativeOnly;
    assert.equal(only({ suffix: "s" }), "suffix (fill-in-the-middle)");
    assert.match(String(only({ raw: true })), /^raw/);
    assert.match(String(only({ template: "{{ .Prompt }}" })), /^template/);
    assert.equal(only({ suffix: "" }), undefined);
  });
});

describe("stream translation", () => {
  it("Anthropic events carry every text piece and every argument piece, whatever the chunking", () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 10 }), fc.array(text, { maxLength: 5 }), (pieces, args) => {
        let sse = "";
        const chunk = (delta: unknown, finish: string | null = null) =>
          `data: ${JSON.stringify({ id: "c", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        for (const piece of pieces) sse += chunk({ content: piece });
        if (args.length > 0) {
          sse += chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: "" } }] });
          for (const piece of args) sse += chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
        }
        sse += `${chunk({}, args.length > 0 ? "tool_calls" : "stop")}data: [DONE]\n\n`;
        const reader = new ChunkReader(new AnthropicStream(), "m");
        // Written in arbitrary slices, as a network would.
        let out = "";
        for (let at = 0; at < sse.length; at += 7) out += reader.push(sse.slice(at, at + 7));
        out += reader.finish();
        const events = out
          .split("\n\n")
          .filter((block) => block.startsWith("event:"))
          .map((block) => JSON.parse(block.slice(block.indexOf("data: ") + 6)));
        const textOut = events
          .filter((e) => e.delta?.type === "text_delta")
          .map((e) => e.delta.text)
          .join("");
        const argsOut = events
          .filter((e) => e.delta?.type === "input_json_delta")
          .map((e) => e.delta.partial_json)
          .join("");
        assert.equal(textOut, pieces.join(""));
        assert.equal(argsOut, args.join(""));
        assert.equal(events[0].type, "message_start");
        assert.equal(events.at(-1).type, "message_stop");
      }),
    );
  });
});

describe("Gemini stream translation", () => {
  it("carries every text piece, each call whole at the end, as SSE or as one JSON array", () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 8 }),
        fc.array(text, { maxLength: 4 }),
        fc.boolean(),
        (pieces, args, sse) => {
          let openai = "";
          const chunk = (delta: unknown, finish: string | null = null) =>
            `data: ${JSON.stringify({ id: "chatcmpl-c", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
          for (const piece of pieces) openai += chunk({ content: piece });
          if (args.length > 0) {
            openai += chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: "" } }] });
            for (const piece of args) openai += chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
          }
          openai += `${chunk({}, args.length > 0 ? "tool_calls" : "stop")}data: [DONE]\n\n`;
          const reader = new ChunkReader(new GeminiStream(sse), "m");
          let out = "";
          for (let at = 0; at < openai.length; at += 7) out += reader.push(openai.slice(at, at + 7));
          out += reader.finish();
          const responses: Array<{
            candidates: Array<{ content: { parts: Record<string, unknown>[] }; finishReason?: string }>;
          }> = sse
            ? out
                .split("\r\n\r\n")
                .filter((event) => event !== "")
                .map((event) => JSON.parse(event.replace(/^data: /, "")))
            : JSON.parse(out);
          const parts = responses.flatMap((response) => response.candidates[0]!.content.parts);
          const textOut = parts.map((part) => (typeof part["text"] === "string" ? part["text"] : "")).join("");
          assert.equal(textOut, pieces.join(""));
          const calls = parts.filter((part) => part["functionCall"] !== undefined);
          assert.equal(calls.length, args.length > 0 ? 1 : 0);
          if (args.length > 0) {
            const expectedArgs = (() => {
              if (args.join("").trim() === "") return {};
              try {
                const value = JSON.parse(args.join(""));
                return value && typeof value === "object" && !Array.isArray(value) ? value : { input: args.join("") };
              } catch {
                return { input: args.join("") };
              }
            })();
            assert.deepEqual(calls[0]!["functionCall"], { id: "call_1", name: "f", args: expectedArgs });
          }
          assert.equal(responses.at(-1)!.candidates[0]!.finishReason, "STOP");
        },
      ),
    );
  });
});

describe("text completions' prompts as routing reads them", () => {
  it("a prompt of token ids is estimated at one token per id, as is a batch of them", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat(200_000), { maxLength: 300 }), { minLength: 1, maxLength: 4 }), (batch) => {
        const flat = body(fromCompletionRequest({ model: "m", prompt: batch[0] })).body;
        assert.equal(chatRequirements(flat).estimatedTokens, batch[0]!.length);
        const nested = body(fromCompletionRequest({ model: "m", prompt: batch })).body;
        assert.equal(
          chatRequirements(nested).estimatedTokens,
          batch.reduce((sum, ids) => sum + ids.length, 0),
        );
      }),
    );
  });
});

describe("the response store is bounded", () => {
  it("in count (oldest first) and in age", async () => {
    let now = 0;
    const store = new MemoryResponseStore({ maxCount: 3, maxAgeSeconds: 10 }, () => now);
    const stored = { response: {}, history: [] };
    for (const id of ["a", "b", "c", "d"]) await store.put(id, stored);
    assert.equal(await store.get("a"), undefined);
    assert.equal(store.size, 3);
    now = 11_000;
    assert.equal(await store.get("d"), undefined, "older than maxAgeSeconds");
    assert.equal(store.size, 0);
  });
});
