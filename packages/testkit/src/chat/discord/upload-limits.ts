// What Discord refuses of the files sent with a message (docs: reference#uploading-files; the default upload limit is
// 10 MiB per file, 25 MiB in boosted guilds, and the whole request is capped too), with Discord's answers: a file or
// a request over the limit is 413 {"message": "Request entity too large", "code": 40005}
// (discord/discord-api-docs#6058); a bot without the Attach Files permission gets 403 {"message": "Missing
// Permissions", "code": 50013}; a file the form validation refuses is 400 "Invalid Form Body" (50035) with the
// error under `files`. A test may refuse the next messages with files in any of those ways.
import type { UploadedFile } from "./rest.ts";

interface RefusalAnswer {
  status: number;
  body: unknown;
}

export type UploadRefusalKind = "too-large" | "missing-permission" | "invalid-form";

const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_REQUEST_BYTES = 25 * 1024 * 1024;

export interface UploadLimitOptions {
  /** Largest file a message may carry; default 10 MiB (a boosted guild: 25 MiB, 50 MiB, 100 MiB). */
  maxUploadBytes?: number;
  /** Largest request body read; default 25 MiB or the file limit, whichever is larger. */
  maxRequestBytes?: number;
}

export function refusal(kind: UploadRefusalKind, maxUploadBytes = DEFAULT_MAX_FILE_BYTES): RefusalAnswer {
  switch (kind) {
    case "too-large":
      return { status: 413, body: { message: "Request entity too large", code: 40005 } };
    case "missing-permission":
      return { status: 403, body: { message: "Missing Permissions", code: 50013 } };
    case "invalid-form": {
      const kb = (maxUploadBytes / 1024).toFixed(2);
      const error = { code: "BINARY_TYPE_MAX_SIZE", message: `File cannot be larger than ${kb} kb.` };
      return {
        status: 400,
        body: { message: "Invalid Form Body", code: 50035, errors: { files: { "0": { _errors: [error] } } } },
      };
    }
  }
}

export class UploadLimits {
  readonly maxUploadBytes: number;
  readonly maxRequestBytes: number;
  readonly #refusals: { left: number; kind: UploadRefusalKind }[] = [];

  constructor(options: UploadLimitOptions = {}) {
    this.maxUploadBytes = options.maxUploadBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.maxRequestBytes = options.maxRequestBytes ?? Math.max(DEFAULT_MAX_REQUEST_BYTES, this.maxUploadBytes);
  }

  /** The next `count` messages sent with files are refused this way. */
  refuseNext(count: number, kind: UploadRefusalKind): void {
    if (count > 0) this.#refusals.push({ left: count, kind });
  }

  /** Discord's answer refusing a message with these files, or undefined when it takes them. */
  check(files: readonly UploadedFile[]): RefusalAnswer | undefined {
    if (files.length === 0) return undefined;
    const queued = this.#refusals[0];
    if (queued !== undefined) {
      if (--queued.left <= 0) this.#refusals.shift();
      return refusal(queued.kind, this.maxUploadBytes);
    }
    return files.some((file) => file.data.length > this.maxUploadBytes) ? refusal("too-large") : undefined;
  }
}
