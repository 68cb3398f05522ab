// `npm run bench gateway-translate`: what translating Anthropic and Google costs the gateway's CPU, per streamed chunk
// and per request, against the pass-through path OpenAI-speaking backends take — measured in-process on the same
// machine in alternating rounds, reported as medians and ratios.
import { toAnthropicRequest } from "../../packages/gateway/src/backends/anthropic/request.ts";
import { toChatCompletion as anthropicCompletion } from "../../packages/gateway/src/backends/anthropic/response.ts";
import { AnthropicStreamTranslator } from "../../packages/gateway/src/backends/anthropic/stream.ts";
import type { AnthropicResponse } from "../../packages/gateway/src/backends/anthropic/types.ts";
import { toGeminiRequest } from "../../packages/gateway/src/backends/google/request.ts";
import { toChatCompletion as geminiCompletion } from "../../packages/gateway/src/backends/google/response.ts";
import { GeminiStreamTranslator } from "../../packages/gateway/src/backends/google/stream.ts";
import { TranslatingSink } from "../../packages/gateway/src/backends/translated-call.ts";
import type { ResponseSink } from "../../packages/gateway/src/backends/upstream-call.ts";
import { bodyWithModel } from "../../packages/gateway/src/dispatch/rewrite-body.ts";
import { SseNormaliser } from "../../packages/gateway/src/dispatch/sse-normaliser.ts";
import type { ChatBody } from "../../packages/gateway/src/request/chat.ts";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(args[index + 1]);
};
const CHUNKS = flag("chunks", 200);
const ROUNDS = flag("rounds", 7);
const MIN_MS = flag("min-ms", 300);

// A realistic request: a system prompt, a 10-turn conversation, two tools.
const request: ChatBody = {
  model: "claude-haiku-4-5",
  messages: [
    { role: "system", content: "You are a helpful assistant. ".repeat(10) },
    ...Array.from({ length: 10 }, (_, index) => ({
      role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `Turn ${index}: ${"some words of conversation ".repeat(8)}`,
    })),
  ],
  tools: ["get_weather", "search"].map((name) => ({
    type: "function",
    function: {
      name,
      description: `${name} tool`,
      parameters: { type: "object", properties: { query: { type: "string" } } },
    },
  })),
  temperature: 0.7,
  max_tokens: 512,
  stream: true,
};
const requestBytes = Buffer.from(JSON.stringify(request));
const pieces = Array.from({ length: CHUNKS }, (_, index) => `tok${index % 10} `);

// The same answer as each provider streams it, one network chunk per event.
const openAiStream = pieces.map((text) =>
  Buffer.from(
    `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] })}\n\n`,
  ),
);
const anthropicEvent = (name: string, data: unknown) =>
  Buffer.from(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
const anthropicStream = [
  anthropicEvent("message_start", {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-haiku-4-5",
      content: [],
      usage: { input_tokens: 300, output_tokens: 1 },
    },
  }),
  anthropicEvent("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  }),
  ...pieces.map((text) =>
    anthropicEvent("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text },
    }),
  ),
  anthropicEvent("content_block_stop", { type: "content_block_stop", index: 0 }),
  anthropicEvent("message_delta", {
    type: "message_delta",
    delta: { stop_reason: "end_turn" },
    usage: { output_tokens: CHUNKS },
  }),
  anthropicEvent("message_stop", { type: "message_stop" }),
];
const geminiStream = pieces.map((text, index) =>
  Buffer.from(
    `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: "model" }, index: 0, ...(index === CHUNKS - 1 ? { finishReason: "STOP" } : {}) }], usageMetadata: { promptTokenCount: 300 }, modelVersion: "gemini-2.5-flash" })}\r\n\r\n`,
  ),
);

/** What dispatch does for every stream: the SSE normaliser (its fast path for whole LF events). */
function passThroughStream(): void {
  const sse = new SseNormaliser();
  for (const chunk of openAiStream) sse.push(chunk);
  sse.finish();
}

function translatedStream(
  chunks: Buffer[],
  translator: () => ConstructorParameters<typeof TranslatingSink>[0]["translator"],
): void {
  // The translated events then go through dispatch's normaliser too, as in production.
  const sse = new SseNormaliser();
  const out: ResponseSink = {
    start() {},
    data: (chunk) => void sse.push(chunk),
    end: () => void sse.finish(),
    error() {},
  };
  const sink = new TranslatingSink({ out, translator: translator(), stream: true, onSettled() {}, secret: undefined });
  sink.start(200, "text/event-stream");
  for (const chunk of chunks) sink.data(chunk);
  sink.end();
}

const anthropicTranslator = () => {
  const stream = new AnthropicStreamTranslator(request, 1);
  return {
    response: () => "",
    event: stream.event.bind(stream),
    finish: stream.finish.bind(stream),
    error: () => ({ status: 500, body: "" }),
    usage: stream.usage.bind(stream),
  };
};
const geminiTranslator = () => {
  const stream = new GeminiStreamTranslator(request, "chatcmpl-1", 1);
  return {
    response: () => "",
    event: stream.event.bind(stream),
    finish: stream.finish.bind(stream),
    error: () => ({ status: 500, body: "" }),
    usage: stream.usage.bind(stream),
  };
};

const parsedBody = JSON.parse(requestBytes.toString()) as Record<string, unknown>;
const anthropicAnswer: AnthropicResponse = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-haiku-4-5",
  content: [{ type: "text", text: pieces.join("") }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 300, output_tokens: CHUNKS },
};
const anthropicAnswerBytes = Buffer.from(JSON.stringify(anthropicAnswer));
const geminiAnswerBytes = Buffer.from(
  JSON.stringify({
    candidates: [{ content: { parts: [{ text: pieces.join("") }], role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 300, candidatesTokenCount: CHUNKS, totalTokenCount: 300 + CHUNKS },
  }),
);
const openAiAnswerBytes = Buffer.from(
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: pieces.join("") } }],
  }),
);

const cases: Record<string, () => void> = {
  "stream: pass-through (normaliser)": passThroughStream,
  "stream: anthropic → openai": () => translatedStream(anthropicStream, anthropicTranslator),
  "stream: google → openai": () => translatedStream(geminiStream, geminiTranslator),
  // Pass-through sends the client's bytes (bodyWithModel returns them when the model is unchanged).
  "request: pass-through": () => void bodyWithModel(parsedBody, requestBytes, request.model),
  "request: openai → anthropic": () =>
    void JSON.stringify(toAnthropicRequest(JSON.parse(requestBytes.toString()) as ChatBody, 4096)),
  "request: openai → google": () =>
    void JSON.stringify(toGeminiRequest(JSON.parse(requestBytes.toString()) as ChatBody)),
  "response: pass-through": () => void Buffer.concat([openAiAnswerBytes]),
  "response: anthropic → openai": () =>
    void JSON.stringify(anthropicCompletion(JSON.parse(anthropicAnswerBytes.toString()) as AnthropicResponse, 1)),
  "response: google → openai": () =>
    void JSON.stringify(
      geminiCompletion(JSON.parse(geminiAnswerBytes.toString()), "chatcmpl-1", "gemini-2.5-flash", 1),
    ),
};

/** Microseconds per call: enough iterations for MIN_MS, after a warm-up. */
function measure(fn: () => void): number {
  for (let i = 0; i < 200; i++) fn();
  let iterations = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 50; i++) fn();
    iterations += 50;
    elapsed = performance.now() - started;
  } while (elapsed < MIN_MS);
  return (elapsed * 1000) / iterations;
}

const results = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(cases)) results.get(name)!.push(measure(fn));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const baseline = (name: string) =>
  median(
    results.get(
      name.startsWith("stream")
        ? "stream: pass-through (normaliser)"
        : name.startsWith("request")
          ? "request: pass-through"
          : "response: pass-through",
    )!,
  );

console.log(
  `node ${process.version}; ${CHUNKS} chunks per stream; ${ROUNDS} rounds, medians; request body ${requestBytes.length} bytes\n`,
);
console.log("| case | µs per call | per chunk (µs) | vs pass-through |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, values] of results) {
  const us = median(values);
  const perChunk = name.startsWith("stream") ? (us / CHUNKS).toFixed(3) : "–";
  console.log(`| ${name} | ${us.toFixed(2)} | ${perChunk} | ${(us / baseline(name)).toFixed(1)}x |`);
}
