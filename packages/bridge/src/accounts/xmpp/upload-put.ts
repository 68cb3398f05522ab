// The HTTP PUT of a file to its upload slot: streamed from the relayed file on disk, with the slot's headers and the
// size and type the slot was asked for (the service checks both), bounded by a wait for the answer, a pause while
// sending and a deadline for the whole upload that grows with the file's size. Errors name what went wrong, never
// the URL (it may hold a secret).
import { thrownMessage } from "@switchboard/common";
import { filesHttp } from "../../core/files/http-agent.ts";
import type { LocalFile } from "../../core/files/local-file.ts";
import type { UploadSlot } from "./upload-slot.ts";

export interface PutLimits {
  /** The wait for the answer's headers; a pause in sending the body counts against it too. */
  headersTimeoutMs: number;
  /** The longest pause between two chunks of the answer's body. */
  idleTimeoutMs: number;
  /** The whole upload of an empty file: setting up the connection, TLS, the server's answer. */
  deadlineFloorMs: number;
  /** The slowest sending the whole upload allows beyond the floor: its deadline grows with the file's size. */
  minBytesPerSecond: number;
}

/**
 * A fixed deadline either cut large files short on a slow link (100 MB in 60 s needs 13 Mbit/s) or let a stalled
 * small one hold its queue for a minute; so the floor covers what every upload costs, and the rest of the deadline
 * grows with the size at 256 KiB/s (about 2 Mbit/s: slower than the uplinks bridges run on, so only a PUT that has
 * practically stopped runs out of it). The default MediaDownloadSize (1 MB) gets about 34 s, 100 MB about 7 minutes.
 */
const PUT_DEADLINE_FLOOR_MS = 30_000;
const PUT_MIN_BYTES_PER_SECOND = 256 * 1024;

export const DEFAULT_PUT_LIMITS: PutLimits = {
  headersTimeoutMs: 15_000,
  idleTimeoutMs: 10_000,
  deadlineFloorMs: PUT_DEADLINE_FLOOR_MS,
  minBytesPerSecond: PUT_MIN_BYTES_PER_SECOND,
};

/** How long the whole PUT of `size` bytes may take under `limits`, in milliseconds. */
export function putDeadlineMs(size: number, limits: PutLimits): number {
  return limits.deadlineFloorMs + Math.ceil((Math.max(0, size) * 1000) / limits.minBytesPerSecond);
}

/** How much of an answer's body is read (and dropped) before the connection is given back. */
const ANSWER_LIMIT = 64 * 1024;

/** PUTs `file` to `slot`; rejects with an Error whose message is safe to log. `cancel` ends it early. */
export async function putFile(
  slot: UploadSlot,
  file: LocalFile,
  limits: PutLimits,
  cancel?: AbortSignal,
): Promise<void> {
  const deadline = new AbortController();
  const deadlineMs = putDeadlineMs(file.size, limits);
  const timer = setTimeout(() => deadline.abort(), deadlineMs);
  const stop = () => deadline.abort();
  cancel?.addEventListener("abort", stop, { once: true });
  const body = file.stream();
  try {
    const { request, dispatcher } = await filesHttp();
    const response = await request(slot.putUrl, {
      method: "PUT",
      dispatcher,
      headers: { ...slot.headers, "content-type": file.mediaType, "content-length": String(file.size) },
      body,
      signal: deadline.signal,
      headersTimeout: limits.headersTimeoutMs,
      bodyTimeout: limits.idleTimeoutMs,
    });
    await response.body.dump({ limit: ANSWER_LIMIT }).catch(() => {});
    if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`HTTP ${response.statusCode}`);
  } catch (error) {
    if (cancel?.aborted) throw new Error("the upload was cancelled");
    if (deadline.signal.aborted) throw new Error(`not uploaded within ${seconds(deadlineMs)} s`);
    throw error instanceof Error && /^HTTP \d+$/.test(error.message) ? error : new Error(networkFailure(error));
  } finally {
    clearTimeout(timer);
    cancel?.removeEventListener("abort", stop);
    body.destroy();
  }
}

/** Whole seconds, or tenths below 10 s (an injected test limit). */
function seconds(ms: number): string {
  return ms >= 10_000 ? String(Math.round(ms / 1000)) : String(Math.round(ms / 100) / 10);
}

/** undici's error code (it names the failure, not the URL), else its message. */
function networkFailure(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code === "string") return code === "UND_ERR_HEADERS_TIMEOUT" ? "no answer to the PUT" : code;
    if (typeof message === "string") return message;
  }
  return thrownMessage(error);
}
