import type { Capability } from "../../config/types.ts";
import { capabilitySet } from "../model-facts.ts";
import { plainNativeChat, wholeNativeCall } from "../native-calls.ts";
import { OpenAICompatibleBackend } from "../openai-compatible/backend.ts";
import type { CallIds, EmbeddingsCall, ModelInfo, ModelLifecycle, NativeApis, UpstreamReply } from "../types.ts";
import { ollamaLifecycle } from "./lifecycle.ts";
import { OllamaCountsTap } from "./native-chat.ts";

interface ShowFacts {
  digest: string;
  contextLength: number | undefined;
  capabilities: ReadonlySet<Capability> | undefined;
}

/**
 * Ollama: models from /api/tags, context length and capabilities from /api/show (cached per digest), chat through its
 * OpenAI-compatible endpoint, embeddings through /api/embed (translated to OpenAI's format).
 */
export class OllamaBackend extends OpenAICompatibleBackend {
  readonly #shown = new Map<string, ShowFacts>();
  readonly lifecycle: ModelLifecycle = ollamaLifecycle(this.client);

  /**
   * Ollama's own /api/chat and /api/generate, for the gateway's Ollama clients: `options` (num_ctx above all),
   * `think`, `keep_alive`, `raw`, `template`, `context` and the answer's own fields (thinking, durations, context)
   * reach them unchanged, which OpenAI's format would lose; its /api/show for theirs. And its OpenAI-compatible text
   * completions, suffix included.
   */
  override readonly natives: NativeApis = {
    ollama: {
      chat: (call, ids, sink) => this.client.dispatch(call.path, call.body, ids, new OllamaCountsTap(sink)),
      call: wholeNativeCall(this.client),
    },
    "openai-completions": { chat: plainNativeChat(this.client) },
  };

  override async probe(timeoutMs: number, stop: AbortSignal): Promise<ModelInfo[]> {
    const tags = await this.client.getJson("/api/tags", timeoutMs, stop);
    const list = tags && typeof tags === "object" ? (tags as Record<string, unknown>)["models"] : undefined;
    if (!Array.isArray(list)) throw new Error("GET /api/tags answered without a models array");
    const entries = list.flatMap((entry) => {
      if (!entry || typeof entry !== "object") return [];
      const record = entry as Record<string, unknown>;
      const id = typeof record["name"] === "string" ? record["name"] : record["model"];
      if (typeof id !== "string" || id === "") return [];
      const digest = typeof record["digest"] === "string" ? record["digest"] : "";
      const modified = typeof record["modified_at"] === "string" ? Date.parse(record["modified_at"]) : Number.NaN;
      return [{ id, digest, created: Number.isNaN(modified) ? undefined : Math.floor(modified / 1000) }];
    });
    const models = await Promise.all(
      entries.map(async ({ id, digest, created }): Promise<ModelInfo> => {
        const facts = await this.#show(id, digest, timeoutMs, stop);
        return { id, created, contextLength: facts?.contextLength, capabilities: facts?.capabilities };
      }),
    );
    for (const name of this.#shown.keys()) {
      if (!entries.some((entry) => entry.id === name)) this.#shown.delete(name);
    }
    return models;
  }

  async #show(model: string, digest: string, timeoutMs: number, stop: AbortSignal): Promise<ShowFacts | undefined> {
    const cached = this.#shown.get(model);
    if (cached && cached.digest === digest && digest !== "") return cached;
    let shown: unknown;
    try {
      shown = await this.client.postJson("/api/show", { model }, timeoutMs, stop);
    } catch {
      return undefined; // the model is still listed; its facts stay unknown until the next probe
    }
    const record = (shown && typeof shown === "object" ? shown : {}) as Record<string, unknown>;
    let contextLength: number | undefined;
    const info = record["model_info"];
    if (info && typeof info === "object") {
      for (const [key, value] of Object.entries(info as Record<string, unknown>)) {
        if (key.endsWith(".context_length") && typeof value === "number" && value > 0) {
          contextLength = value;
          break;
        }
      }
    }
    let capabilities = capabilitySet(record["capabilities"]);
    // Ollama constrains output with `format` for every completion model, so JSON mode follows completion.
    if (capabilities?.has("completion")) capabilities = new Set([...capabilities, "json"]);
    const facts = { digest, contextLength, capabilities };
    this.#shown.set(model, facts);
    return facts;
  }

  override async embeddings(call: EmbeddingsCall, ids: CallIds, signal: AbortSignal): Promise<UpstreamReply> {
    // The input goes as the client sent it (its bytes may be megabytes the event loop never decoded).
    const head: Record<string, unknown> = { model: call.model };
    if (call.dimensions !== undefined) head["dimensions"] = call.dimensions;
    const payload = Buffer.concat([
      Buffer.from(`${JSON.stringify(head).slice(0, -1)},"input":`),
      Buffer.from(call.inputJson()),
      Buffer.from("}"),
    ]);
    const reply = await this.client.fetch("POST", "/api/embed", payload, { signal, ids });
    if (reply.statusCode !== 200) return reply;
    let parsed: { embeddings?: unknown; prompt_eval_count?: unknown };
    try {
      parsed = JSON.parse(reply.body.toString("utf8"));
    } catch {
      return { statusCode: 502, contentType: "text/plain", body: Buffer.from("Ollama answered invalid JSON") };
    }
    if (!Array.isArray(parsed.embeddings)) {
      return { statusCode: 502, contentType: "text/plain", body: Buffer.from("Ollama answered without embeddings") };
    }
    const inputs = Array.isArray(call.input) ? call.input : [call.input];
    const estimated = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    const tokens = typeof parsed.prompt_eval_count === "number" ? parsed.prompt_eval_count : estimated;
    const data = parsed.embeddings.map((vector: unknown, index: number) => ({
      object: "embedding",
      index,
      embedding: call.encodingFormat === "base64" ? toBase64(vector) : vector,
    }));
    const body = { object: "list", data, model: call.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
    return { statusCode: 200, contentType: "application/json", body: Buffer.from(JSON.stringify(body)) };
  }
}

/** OpenAI's base64 encoding of an embedding: little-endian float32. */
function toBase64(vector: unknown): string {
  const values = Array.isArray(vector) ? vector : [];
  const floats = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) floats[i] = Number(values[i]);
  return Buffer.from(floats.buffer).toString("base64");
}
