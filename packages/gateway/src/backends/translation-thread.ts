// The translation thread (see translate-off-thread.ts): parses an OpenAI chat body, runs a backend type's request
// translation on it and hands back the provider's body as bytes it no longer owns (moved, not copied).
import { parentPort } from "node:worker_threads";
// From its own module: the whole of common would cost this thread ~60 ms to load.
import { thrownMessage } from "@switchboard/common/thrown";
import type { ChatBody } from "../request/chat.ts";
import { TranslationError } from "./openai-chat.ts";
import {
  type NativeRequest,
  RESPONSE_FIELDS,
  type RequestOptions,
  type TranslationReply,
} from "./request-translation.ts";

interface Job {
  buffer: ArrayBufferLike;
  offset: number;
  length: number;
  module: string;
  exportName: string;
  options: unknown;
}

type Translate = (request: ChatBody, options: unknown) => NativeRequest;

async function translate(job: Job): Promise<[TranslationReply, ArrayBuffer[]]> {
  const module = (await import(job.module)) as Record<string, unknown>;
  const translateRequest = module[job.exportName] as Translate;
  const request = JSON.parse(Buffer.from(job.buffer, job.offset, job.length).toString("utf8")) as ChatBody;
  let native: NativeRequest;
  try {
    native = translateRequest(request, job.options);
  } catch (error) {
    if (error instanceof TranslationError) return [{ refused: error.envelope() }, []];
    throw error;
  }
  const body = typeof native.body === "string" ? new TextEncoder().encode(native.body) : new Uint8Array(native.body);
  const options: Record<string, unknown> = {};
  for (const field of RESPONSE_FIELDS) if (Object.hasOwn(request, field)) options[field] = request[field];
  const reply: TranslationReply = {
    native: { path: native.path, stream: native.stream, body: body.buffer as ArrayBuffer },
    options: options as RequestOptions,
  };
  return [reply, [body.buffer as ArrayBuffer]];
}

parentPort?.on("message", (job: Job) => {
  translate(job).then(
    ([reply, transfer]) => parentPort?.postMessage(reply, transfer),
    (error: unknown) => parentPort?.postMessage({ failed: thrownMessage(error) } satisfies TranslationReply),
  );
});
