// Gemini's embedContent and batchEmbedContents → the pipeline's embeddings request (OpenAI's), and its answer back.
import type { ApiError } from "../../request/errors.ts";
import { isObject } from "../json-object.ts";
import type { OpenAiUsage } from "../openai-answer.ts";
import type { AnswerFormat } from "../translating-writer.ts";
import { geminiEnvelope } from "./errors.ts";
import { invalid } from "./request.ts";

type Json = Record<string, unknown>;

/**
 * The OpenAI embeddings body for one embedContent request (`batch` false) or a batch of them: each content's text
 * parts, joined, is one input; `outputDimensionality` is `dimensions` (one value for the whole batch). `taskType` and
 * `title` are Google's advice to its own models, left out.
 */
export function fromEmbedContent(value: unknown, model: string, batch: boolean): Json | ApiError {
  if (!isObject(value)) return invalid("The request body must be a JSON object");
  let requests: unknown[] = [value];
  if (batch) {
    if (!Array.isArray(value["requests"]) || value["requests"].length === 0) {
      return invalid("requests: at least one request is required", "requests");
    }
    requests = value["requests"];
  }
  const input: string[] = [];
  let dimensions: unknown;
  for (const [index, request] of requests.entries()) {
    const where = batch ? `requests.${index}` : "";
    const at = (field: string) => (where === "" ? field : `${where}.${field}`);
    if (!isObject(request)) return invalid(`${where}: must be an object`, where);
    const text = textOf(request["content"]);
    if (text === undefined) return invalid(`${at("content")}: a content with text parts is required`, at("content"));
    input.push(text);
    const size = request["outputDimensionality"];
    if (size === undefined) continue;
    if (typeof size !== "number" || !Number.isInteger(size) || size < 1) {
      return invalid(`${at("outputDimensionality")}: must be a positive integer`, at("outputDimensionality"));
    }
    if (dimensions !== undefined && dimensions !== size) {
      return invalid(
        "outputDimensionality: every request of a batch must ask for the same size",
        at("outputDimensionality"),
      );
    }
    dimensions = size;
  }
  return dimensions === undefined ? { model, input } : { model, input, dimensions };
}

function textOf(content: unknown): string | undefined {
  if (!isObject(content) || !Array.isArray(content["parts"]) || content["parts"].length === 0) return undefined;
  let text = "";
  for (const part of content["parts"]) {
    if (!isObject(part) || typeof part["text"] !== "string") return undefined;
    text += part["text"];
  }
  return text;
}

interface OpenAiEmbeddings {
  data?: Array<{ embedding?: unknown }>;
  usage?: OpenAiUsage;
}

/** The answer of embedContent (`{embedding: {values}}`) or batchEmbedContents (`{embeddings: [{values}]}`). */
export function geminiEmbedFormat(batch: boolean): AnswerFormat<OpenAiEmbeddings> {
  return {
    streamType: "application/json",
    completion: (list) => {
      const vectors = (list.data ?? []).map((entry) => ({ values: entry.embedding }));
      return batch ? { embeddings: vectors } : { embedding: vectors[0] ?? { values: [] } };
    },
    envelope: geminiEnvelope,
  };
}
