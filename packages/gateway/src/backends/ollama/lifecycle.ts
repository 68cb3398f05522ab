import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { readCapped } from "../capped-read.ts";
import type { BackendHttpClient } from "../http-client.ts";
import type { ModelLifecycle, PullProgress } from "../types.ts";

/** Loading a large model can take minutes on a slow disk; a pull reads its progress line by line with no timeout. */
const LOAD_TIMEOUT_MS = 10 * 60_000;
/** Ollama's progress lines and error bodies are a few hundred bytes; a longer one is not Ollama's. */
const MAX_LINE_BYTES = 64 * 1024;

async function failureText(response: { statusCode: number; body: Readable }): Promise<string> {
  const text = await readCapped(response.body, MAX_LINE_BYTES).then(
    (body) => body.toString("utf8"),
    () => "",
  );
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof error === "string") return error;
  } catch {
    // not JSON
  }
  return `HTTP ${response.statusCode}${text ? `: ${text.slice(0, 200)}` : ""}`;
}

/**
 * Ollama's model lifecycle: pull (`/api/pull`, progress streamed as NDJSON), load and unload (`/api/generate` with
 * an empty prompt and `keep_alive`), and what is in memory (`/api/ps`). Every failure is an Error carrying Ollama's
 * own message.
 */
export function ollamaLifecycle(client: BackendHttpClient): ModelLifecycle {
  return {
    async pull(model, onProgress, signal) {
      const response = await client.request("POST", "/api/pull", JSON.stringify({ model, stream: true }), {
        signal,
        timeoutMs: LOAD_TIMEOUT_MS,
      });
      if (response.statusCode !== 200) throw new Error(await failureText(response));
      const decoder = new StringDecoder("utf8");
      let pending = "";
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        pending += decoder.write(chunk);
        let newline = pending.indexOf("\n");
        if (newline === -1 && pending.length > MAX_LINE_BYTES) {
          response.body.destroy();
          throw new Error(`the pull's progress line is longer than ${MAX_LINE_BYTES} bytes: not Ollama's answer`);
        }
        while (newline >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          newline = pending.indexOf("\n");
          if (line === "") continue;
          const event = JSON.parse(line) as { status?: string; error?: string; total?: number; completed?: number };
          if (typeof event.error === "string") throw new Error(event.error);
          const progress: PullProgress = { detail: event.status ?? "pulling" };
          if (typeof event.total === "number" && event.total > 0 && typeof event.completed === "number") {
            progress.fraction = Math.min(1, event.completed / event.total);
          }
          onProgress(progress);
        }
      }
    },
    async load(model, signal) {
      const reply = await client.fetch("POST", "/api/generate", JSON.stringify({ model, prompt: "", stream: false }), {
        signal,
        timeoutMs: LOAD_TIMEOUT_MS,
      });
      if (reply.statusCode !== 200) throw new Error(reply.body.toString("utf8").slice(0, 300));
    },
    async unload(model) {
      const reply = await client.fetch(
        "POST",
        "/api/generate",
        JSON.stringify({ model, prompt: "", keep_alive: 0, stream: false }),
      );
      if (reply.statusCode !== 200) throw new Error(reply.body.toString("utf8").slice(0, 300));
    },
    async inMemory() {
      const reply = await client.fetch("GET", "/api/ps", undefined);
      if (reply.statusCode !== 200) throw new Error(`GET /api/ps answered ${reply.statusCode}`);
      const models = (JSON.parse(reply.body.toString("utf8")) as { models?: { name?: unknown }[] }).models ?? [];
      return models.flatMap((entry) => (typeof entry.name === "string" ? [entry.name] : []));
    },
  };
}
