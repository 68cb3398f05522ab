// OpenAI's text completions (POST /v1/completions) as vLLM, llama.cpp and Ollama serve them: a raw prompt, whole or
// as an SSE stream of text chunks ending with data: [DONE]. A suffix (fill-in-the-middle) is read through a code
// model's template by Ollama (the model needs the insert capability); vLLM refuses it.
import { countTokens, defaultReply, splitIntoChunks } from "./content.ts";
import type { Flavor } from "./openai-routes.ts";
import { buildAnswer } from "./reply.ts";
import { type Exchange, type Handler, sendJson } from "./server.ts";
import { EventWriter } from "./stream.ts";
import type { FakeModel } from "./types.ts";

let sequence = 0;

const error = (exchange: Exchange, status: number, message: string, param: string | null) =>
  sendJson(exchange, status, { error: { message, type: "invalid_request_error", param, code: null } });

export function completionsRoute(flavor: Flavor): Handler {
  return async (exchange) => {
    const body = exchange.body?.ok ? exchange.body.value : undefined;
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      return error(exchange, 400, "The request body must be a JSON object.", null);
    }
    const request = body as Record<string, unknown>;
    const model = exchange.models.find((candidate: FakeModel) => candidate.id === request["model"]);
    if (!model) {
      return error(exchange, 404, `The model \`${String(request["model"])}\` does not exist.`, "model");
    }
    const prompt = Array.isArray(request["prompt"]) ? request["prompt"].join("") : String(request["prompt"] ?? "");
    const suffix = typeof request["suffix"] === "string" ? request["suffix"] : "";
    let read = prompt;
    if (suffix !== "") {
      if (flavor !== "ollama") return error(exchange, 400, "suffix is not currently supported", "suffix");
      if (!model.capabilities?.includes("insert")) {
        return error(exchange, 400, `"${model.id}" does not support insert`, "suffix");
      }
      read = `<PRE> ${prompt} <SUF>${suffix} <MID>`;
    }
    const limit = request["max_tokens"];
    const answer = buildAnswer(
      {
        model: model.id,
        messages: [{ role: "user", content: read }],
        ...(typeof limit === "number" ? { max_tokens: limit } : {}),
      },
      exchange.options.reply ?? defaultReply,
      ++sequence,
    );
    const finish = answer.finishReason === "length" ? "length" : "stop";
    const usage = {
      prompt_tokens: countTokens(read),
      completion_tokens: answer.completionTokens,
      total_tokens: countTokens(read) + answer.completionTokens,
    };
    const base = {
      id: `cmpl-fake${sequence}`,
      object: "text_completion",
      created: Math.floor(Date.now() / 1000),
      model: model.id,
    };
    const choice = (text: string, finishReason: string | null) => ({
      index: 0,
      text,
      logprobs: null,
      finish_reason: finishReason,
    });
    if (request["stream"] !== true)
      return sendJson(exchange, 200, { ...base, choices: [choice(answer.text, finish)], usage });
    const writer = new EventWriter(exchange, "text/event-stream; charset=utf-8");
    const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
    const events = splitIntoChunks(answer.text, exchange.options.chunks ?? 5).map((piece) =>
      event({ ...base, choices: [choice(piece, null)] }),
    );
    events.push(event({ ...base, choices: [choice("", finish)] }));
    const includeUsage = (request["stream_options"] as { include_usage?: unknown } | undefined)?.include_usage;
    if (includeUsage === true) events.push(event({ ...base, choices: [], usage }));
    events.push("data: [DONE]\n\n");
    for (const text of events) {
      if (!(await writer.write(text))) return;
    }
    writer.end();
  };
}
