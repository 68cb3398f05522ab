// One file fetched over HTTP(S) into a local file, bounded in every way a hostile or broken server could abuse: at
// most `maxBytes` (a larger Content-Length is refused before reading, a body that keeps coming is cut at the limit),
// a few redirects (a loop ends there; credentials are not carried to another host), a wait for headers, a wait
// between body chunks (a slow drip) and a deadline for the whole download. Errors name what went wrong, never the
// URL: a Telegram file URL carries the bot token.
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { thrownMessage } from "@switchboard/common";
import type { Dispatcher } from "undici";
import { filesHttp } from "./http-agent.ts";

/** Where a file's bytes are, with the headers its source account's credentials need. */
export interface FileRequest {
  url: string;
  headers?: Readonly<Record<string, string>>;
}

export interface DownloadLimits {
  maxBytes: number;
  maxRedirects: number;
  headersTimeoutMs: number;
  /** Longest pause between two chunks of the body. */
  idleTimeoutMs: number;
  /** The whole download, redirects included. */
  deadlineMs: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: Omit<DownloadLimits, "maxBytes"> = {
  maxRedirects: 3,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 10_000,
  deadlineMs: 30_000,
};

/** A download that did not complete; `reason` is safe to log. */
export class DownloadError extends Error {
  override readonly name = "DownloadError";
  constructor(
    readonly reason: "too-large" | "http-status" | "redirects" | "timeout" | "network" | "bad-url",
    message: string,
  ) {
    super(message);
  }
}

export interface Downloaded {
  size: number;
  /** The server's Content-Type, "" when it gave none. */
  contentType: string;
}

/** Fetches `file` into `path` (created, removed again on failure). */
export async function download(file: FileRequest, path: string, limits: DownloadLimits): Promise<Downloaded> {
  // Our own timer rather than AbortSignal.timeout: it must never fire once the download is over.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), limits.deadlineMs);
  try {
    return await follow(file, path, limits, deadline.signal);
  } catch (error) {
    await rm(path, { force: true });
    if (error instanceof DownloadError) throw error;
    if (deadline.signal.aborted) {
      throw new DownloadError("timeout", `not downloaded within ${limits.deadlineMs / 1000} s`);
    }
    throw new DownloadError("network", describeNetworkError(error));
  } finally {
    clearTimeout(timer);
  }
}

/** A response whose body is not wanted: dropped, and its late errors too. */
function discard(body: Readable): void {
  body.on("error", () => {});
  body.destroy();
}

async function follow(file: FileRequest, path: string, limits: DownloadLimits, signal: AbortSignal) {
  let url = parseUrl(file.url);
  let headers = { ...file.headers };
  const { request, dispatcher } = await filesHttp();
  for (let hop = 0; ; hop++) {
    const response = await request(url, {
      method: "GET",
      headers,
      signal,
      dispatcher,
      headersTimeout: limits.headersTimeoutMs,
      bodyTimeout: limits.idleTimeoutMs,
    });
    const { statusCode } = response;
    if (statusCode >= 300 && statusCode < 400 && statusCode !== 304) {
      discard(response.body);
      const location = response.headers["location"];
      if (typeof location !== "string") throw new DownloadError("http-status", `HTTP ${statusCode} without a Location`);
      if (hop >= limits.maxRedirects)
        throw new DownloadError("redirects", `more than ${limits.maxRedirects} redirects`);
      const next = parseUrl(location, url);
      // The source's credentials are for its own host only.
      if (next.host !== url.host) headers = {};
      url = next;
      continue;
    }
    if (statusCode !== 200) {
      discard(response.body);
      throw new DownloadError("http-status", `HTTP ${statusCode}`);
    }
    return await save(response, path, limits.maxBytes);
  }
}

async function save(response: Dispatcher.ResponseData, path: string, maxBytes: number): Promise<Downloaded> {
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(response.body);
    throw tooLarge(maxBytes, `it says ${declared} bytes`);
  }
  let size = 0;
  const body: Readable = response.body;
  body.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) body.destroy(tooLarge(maxBytes, "its body kept coming"));
  });
  await pipeline(body, createWriteStream(path, { flags: "wx", mode: 0o600 }));
  const type = response.headers["content-type"];
  return { size, contentType: typeof type === "string" ? type : "" };
}

function tooLarge(maxBytes: number, detail: string): DownloadError {
  return new DownloadError("too-large", `larger than MediaDownloadSize (${maxBytes} bytes): ${detail}`);
}

function parseUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new DownloadError("bad-url", "not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new DownloadError("bad-url", "not an http(s) URL");
  return url;
}

/** The cause's code or message (undici's errors name the failure, not the URL). */
function describeNetworkError(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code === "string") return code === "UND_ERR_BODY_TIMEOUT" ? "the body stalled" : code;
    if (typeof message === "string") return message;
  }
  return thrownMessage(error);
}
