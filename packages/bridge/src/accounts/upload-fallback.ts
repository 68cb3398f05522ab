// A file the destination refuses to take (too large for it, a type it does not allow: a 4xx for the file itself)
// must not cost the message: the protocol sends the file's link instead, when it has one. Each account keeps one
// RefusedUploads: it remembers the files refused (a send retried after a rate limit does not upload them again) and
// logs the refusals, at most one line a minute (a flood of large files must not flood the log), each naming the
// files and the platform's reason (never a URL), and counting the refusals logged quietly since the last line.
import type { Logger } from "pino";
import { type LocalFile, markNotUploaded } from "../core/files/local-file.ts";
import { LogWindow } from "../core/log-window.ts";
import { fileLine } from "./file-lines.ts";

/** How much of the platform's reason a line shows. */
const REASON_CHARS = 200;

export class RefusedUploads {
  readonly #logger: Logger;
  readonly #window: LogWindow;
  readonly #files = new WeakSet<LocalFile>();

  constructor(logger: Logger, now: () => number = Date.now) {
    this.#logger = logger;
    this.#window = new LogWindow(now);
  }

  /** Whether the platform refused this file already. */
  has(file: LocalFile): boolean {
    return this.#files.has(file);
  }

  /** The platform refused `files` (one request carried them all) for `reason`. */
  record(files: readonly LocalFile[], reason: string): void {
    for (const file of files) {
      this.#files.add(file);
      // Not counted in bridge_file_bytes_total: its link went instead.
      markNotUploaded(file);
    }
    const quiet = this.#window.due();
    if (quiet === undefined) return;
    const why = reason.replace(/\s+/g, " ").trim().slice(0, REASON_CHARS);
    const names = files.map((file) => file.name);
    const what = names.length === 1 ? `file ${names[0]}` : `files ${names.join(", ")}`;
    const more = quiet > 0 ? ` (and ${quiet} more refused since the last such line)` : "";
    this.#logger.warn(
      { files: names, reason: why, ...(quiet > 0 ? { quietRefusals: quiet } : {}) },
      `${what} not uploaded: refused (${why}); ${instead(files)}${more}`,
    );
  }
}

function instead(files: readonly LocalFile[]): string {
  const linked = files.filter((file) => file.link !== "").length;
  if (files.length === 1) return linked === 1 ? "its link is sent instead" : "it has no link to send instead";
  if (linked === files.length) return "their links are sent instead";
  return linked === 0 ? "they have no link to send instead" : "their links, where they have one, are sent instead";
}

/**
 * The upload's result, or undefined when the platform refused the file (`refusal` names why; recorded in
 * `refused`), now or on an earlier attempt of the same send.
 */
export async function uploadUnlessRefused<T>(
  file: LocalFile,
  upload: () => Promise<T>,
  refusal: (error: unknown) => string | undefined,
  refused: RefusedUploads,
): Promise<T | undefined> {
  if (refused.has(file)) return undefined;
  try {
    return await upload();
  } catch (error) {
    const reason = refusal(error);
    if (reason === undefined) throw error;
    refused.record([file], reason);
    return undefined;
  }
}

/** The line to send for a refused file ("" when it has no link). */
export function refusedFileLine(file: LocalFile): string {
  return file.link === "" ? "" : fileLine(file.link, file.comment);
}

/** A refused file's message of its own: the sender's nick ("" for none) and its link; "" when it has no link. */
export function refusedFileMessage(file: LocalFile, nick: string): string {
  const line = refusedFileLine(file);
  return line === "" ? "" : [nick.trim(), line].filter((part) => part !== "").join(" ");
}

/** An HTTP status that refuses the file itself (not a rate limit, not the credentials). */
export function isFileRefusalStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429;
}
