// `npm run bench gateway-inbound`: what each inbound adapter (Anthropic Messages, OpenAI Responses, Ollama's API, Gemini)
// costs the gateway's CPU per request and per streamed chunk, against /v1/chat/completions (the identity) on the same
// backend answer — measured in-process in alternating rounds, reported as medians and ratios. The rest of a request's
// path (routing, queue, the backend call) is the same pipeline for every API, so this difference is the whole cost.
import type { ServerResponse } from "node:http";
import { bodyWithModel } from "../../packages/gateway/src/dispatch/rewrite-body.ts";
import { SseNormaliser } from "../../packages/gateway/src/dispatch/sse-normaliser.ts";
import { validateChat } from "../../packages/gateway/src/http/validate-chat.ts";
import { anthropicFormat } from "../../packages/gateway/src/inbound/anthropic/format.ts";
import { fromMessagesRequest } from "../../packages/gateway/src/inbound/anthropic/request.ts";
import { geminiFormat } from "../../packages/gateway/src/inbound/gemini/format.ts";
import { fromGenerateContent } from "../../packages/gateway/src/inbound/gemini/request.ts";
import { ollamaFormat } from "../../packages/gateway/src/inbound/ollama/format.ts";
import { fromOllamaChat } from "../../packages/gateway/src/inbound/ollama/request.ts";
import { responsesFormat } from "../../packages/gateway/src/inbound/responses/format.ts";
import { fromResponsesRequest } from "../../packages/gateway/src/inbound/responses/request.ts";
import { ResponseDraft } from "../../packages/gateway/src/inbound/responses/response.ts";
import { type AnswerFormat, TranslatingWriter } from "../../packages/gateway/src/inbound/translating-writer.ts";
import type { ChatBody } from "../../packages/gateway/src/request/chat.ts";
import { ApiError } from "../../packages/gateway/src/request/errors.ts";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(args[index + 1]);
};
const CHUNKS = flag("chunks", 200);
const ROUNDS = flag("rounds", 7);
const MIN_MS = flag("min-ms", 300);

// The same conversation in each API: a system prompt, 10 turns, two tools.
const turns = Array.from({ length: 10 }, (_, index) => ({
  role: index % 2 === 0 ? "user" : "assistant",
  content: `Turn ${index}: ${"some words of conversation ".repeat(8)}`,
}));
const system = "You are a helpful assistant. ".repeat(10);
const schema = { type: "object", properties: { query: { type: "string" } } };
const names = ["get_weather", "search"];
const openAiBody = {
  model: "m",
  messages: [{ role: "system", content: system }, ...turns],
  tools: names.map((name) => ({
    type: "function",
    function: { name, description: `${name} tool`, parameters: schema },
  })),
  max_tokens: 512,
  stream: true,
};
const anthropicBody = {
  model: "m",
  system,
  messages: turns,
  tools: names.map((name) => ({ name, description: `${name} tool`, input_schema: schema })),
  max_tokens: 512,
  stream: true,
};
const responsesBody = {
  model: "m",
  instructions: system,
  input: turns,
  tools: names.map((name) => ({ type: "function", name, description: `${name} tool`, parameters: schema })),
  max_output_tokens: 512,
  stream: true,
};
const ollamaBody = { model: "m", messages: [{ role: "system", content: system }, ...turns], tools: openAiBody.tools };
const geminiBody = {
  systemInstruction: { parts: [{ text: system }] },
  contents: turns.map((turn) => ({ role: turn.role === "user" ? "user" : "model", parts: [{ text: turn.content }] })),
  tools: [
    {
      functionDeclarations: names.map((name) => ({ name, description: `${name} tool`, parametersJsonSchema: schema })),
    },
  ],
  generationConfig: { maxOutputTokens: 512 },
};
const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
const requestBytes = {
  openai: bytes(openAiBody),
  anthropic: bytes(anthropicBody),
  responses: bytes(responsesBody),
  ollama: bytes(ollamaBody),
  gemini: bytes(geminiBody),
};

// The backend's answer, as the attempt writes it: one chunk event per token, the usage chunk, [DONE].
const pieces = Array.from({ length: CHUNKS }, (_, index) => `tok${index % 10} `);
const chunkEvent = (delta: unknown, finish: string | null = null) =>
  Buffer.from(
    `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`,
  );
const stream = [
  ...pieces.map((text) => chunkEvent({ content: text })),
  chunkEvent({}, "stop"),
  Buffer.from(
    `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 300, completion_tokens: CHUNKS, total_tokens: 300 + CHUNKS } })}\n\ndata: [DONE]\n\n`,
  ),
];
const completion = bytes({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: pieces.join("") }, finish_reason: "stop" }],
  usage: { prompt_tokens: 300, completion_tokens: CHUNKS, total_tokens: 300 + CHUNKS },
});

/** A client response that discards what it is given (the socket's cost is the same for every API). */
function nullResponse(): ServerResponse {
  const res = {
    headersSent: false,
    destroyed: false,
    writableEnded: false,
    writeHead() {
      res.headersSent = true;
      return res;
    },
    write: () => true,
    end() {
      res.writableEnded = true;
      return res;
    },
    once: () => res,
  };
  return res as unknown as ServerResponse;
}

const headers = () => ({ "content-type": "text/event-stream", "x-gateway-backend": "b" });

/** /v1/chat/completions: the normaliser, then the events written to the response as they are. */
function identityStream(): void {
  const res = nullResponse();
  const sse = new SseNormaliser();
  res.writeHead(200, headers());
  for (const chunk of stream) res.write(sse.push(chunk));
  res.end(sse.finish());
}

function adapterStream(format: () => AnswerFormat): void {
  const writer = new TranslatingWriter(nullResponse(), format(), "m", true);
  const sse = new SseNormaliser();
  writer.writeHead(200, headers());
  for (const chunk of stream) writer.write(sse.push(chunk));
  writer.end(sse.finish());
}

function identityBody(): void {
  const res = nullResponse();
  res.writeHead(200, { "content-type": "application/json", "content-length": completion.length });
  res.end(completion);
}

function adapterBody(format: () => AnswerFormat): void {
  const writer = new TranslatingWriter(nullResponse(), format(), "m", false);
  writer.writeHead(200, { "content-type": "application/json", "content-length": completion.length });
  writer.end(completion);
}

const formats: Record<string, () => AnswerFormat> = {
  anthropic: () => anthropicFormat("m"),
  responses: () => {
    const translated = fromResponsesRequest(responsesBody);
    if (translated instanceof ApiError) throw translated;
    return responsesFormat(new ResponseDraft(translated.echo), [], undefined, () => {});
  },
  ollama: () => ollamaFormat("chat", "m"),
  gemini: () => geminiFormat("m", true),
};

// Per request: the body's parse (done once by the gateway's JSON reader for every API), its validation or
// translation, and the bytes sent to the backend (the client's own for OpenAI chat; re-serialised for the others).
const requests: Record<string, () => void> = {
  openai: () => {
    const body = validateChat(JSON.parse(requestBytes.openai.toString())) as ChatBody;
    bodyWithModel(body, requestBytes.openai, "m");
  },
  anthropic: () => {
    const translated = fromMessagesRequest(JSON.parse(requestBytes.anthropic.toString()));
    if (!(translated instanceof ApiError)) bodyWithModel(translated.body, undefined, "m");
  },
  responses: () => {
    const translated = fromResponsesRequest(JSON.parse(requestBytes.responses.toString()));
    if (!(translated instanceof ApiError)) bodyWithModel(translated.body, undefined, "m");
  },
  ollama: () => {
    const translated = fromOllamaChat(JSON.parse(requestBytes.ollama.toString()));
    if (!(translated instanceof ApiError)) bodyWithModel(translated.body, undefined, "m");
  },
  gemini: () => {
    const translated = fromGenerateContent(JSON.parse(requestBytes.gemini.toString()), "m", true);
    if (!(translated instanceof ApiError)) bodyWithModel(translated.body, undefined, "m");
  },
};

const cases: Record<string, () => void> = {
  "stream: /v1/chat/completions (identity)": identityStream,
  "stream: /v1/messages": () => adapterStream(formats["anthropic"]!),
  "stream: /v1/responses": () => adapterStream(formats["responses"]!),
  "stream: /api/chat (NDJSON)": () => adapterStream(formats["ollama"]!),
  "stream: :streamGenerateContent?alt=sse": () => adapterStream(formats["gemini"]!),
  "request: /v1/chat/completions (identity)": requests["openai"]!,
  "request: /v1/messages": requests["anthropic"]!,
  "request: /v1/responses": requests["responses"]!,
  "request: /api/chat": requests["ollama"]!,
  "request: :generateContent": requests["gemini"]!,
  "body: /v1/chat/completions (identity)": identityBody,
  "body: /v1/messages": () => adapterBody(formats["anthropic"]!),
  "body: /v1/responses": () => adapterBody(formats["responses"]!),
  "body: /api/chat": () => adapterBody(formats["ollama"]!),
  "body: :generateContent": () => adapterBody(formats["gemini"]!),
};

/** Microseconds per call: enough iterations for MIN_MS, after a warm-up. */
function measure(fn: () => void): number {
  for (let i = 0; i < 200; i++) fn();
  let iterations = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    for (let i = 0; i < 20; i++) fn();
    iterations += 20;
    elapsed = performance.now() - started;
  } while (elapsed < MIN_MS);
  return (elapsed * 1000) / iterations;
}

const results = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(cases)) results.get(name)!.push(measure(fn));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kind = (name: string) => name.slice(0, name.indexOf(":"));
const baseline = (name: string) => median(results.get(`${kind(name)}: /v1/chat/completions (identity)`)!);

console.log(
  `node ${process.version}; ${CHUNKS} chunks per stream; ${ROUNDS} rounds, medians; goals: ≤ 10 µs per streamed chunk, ≤ 60 µs per request\n`,
);
console.log("| case | µs per call | added per chunk (µs) | added per request (µs) | vs identity |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, values] of results) {
  const us = median(values);
  const added = us - baseline(name);
  const identity = name.includes("identity");
  const perChunk = kind(name) === "stream" && !identity ? (added / CHUNKS).toFixed(3) : "–";
  const perRequest = kind(name) !== "stream" && !identity ? added.toFixed(2) : "–";
  console.log(`| ${name} | ${us.toFixed(2)} | ${perChunk} | ${perRequest} | ${(us / baseline(name)).toFixed(1)}x |`);
}
