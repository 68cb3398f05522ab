// A file the destination refuses to take (too large for it, a type it does not allow: a 4xx for the file itself)
// must not cost the message: the protocol sends the file's link instead, when it has one. One warning per file
// names the account, the file and the platform's reason (never a URL).
import type { Logger } from "pino";
import type { LocalFile } from "../core/files/local-file.ts";
import { fileLine } from "./file-lines.ts";

/** The upload's result, or undefined when the platform refused the file (`refusal` names why; logged here). */
export async function uploadUnlessRefused<T>(
  file: LocalFile,
  upload: () => Promise<T>,
  refusal: (error: unknown) => string | undefined,
  logger: Logger,
): Promise<T | undefined> {
  try {
    return await upload();
  } catch (error) {
    const reason = refusal(error);
    if (reason === undefined) throw error;
    const instead = file.link === "" ? "it has no link to send instead" : "its link is sent instead";
    logger.warn({ file: file.name, reason }, `file ${file.name} not uploaded: refused (${reason}); ${instead}`);
    return undefined;
  }
}

/** The line to send for a refused file ("" when it has no link). */
export function refusedFileLine(file: LocalFile): string {
  return file.link === "" ? "" : fileLine(file.link, file.comment);
}

/** An HTTP status that refuses the file itself (not a rate limit, not the credentials). */
export function isFileRefusalStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429;
}
