// Whether the Bot API refused an uploaded file, read from grammy's GrammyError (error_code and description come from
// whatever JSON the server answered, so neither is trusted to be a number or a string). A 4xx other than 401, 403
// and 429 refuses the file itself: 413 "Request Entity Too Large" (a multipart body over 50 MB), 400 "Bad Request:
// PHOTO_INVALID_DIMENSIONS", "...: file is too big", "...: wrong file identifier/HTTP URL specified", "...: not enough
// rights to send photos to the chat"... Never throws.
import { GrammyError } from "grammy";
import { isFileRefusalStatus } from "../upload-fallback.ts";

const BODY_TOO_LARGE = 413;
const DESCRIPTION_CHARS = 200;

/** Why the Bot API refused the file of a sendPhoto or sendDocument, or undefined when it did not. */
export function uploadRefusal(error: unknown): string | undefined {
  if (!(error instanceof GrammyError)) return undefined;
  const code: unknown = error.error_code;
  if (typeof code !== "number" || !isFileRefusalStatus(code)) return undefined;
  const description: unknown = error.description;
  const words = typeof description === "string" && description !== "" ? description : "refused";
  return `${code} ${words.slice(0, DESCRIPTION_CHARS)}`;
}

/**
 * A photo refused as a photo that Telegram may take as a document (its dimensions, its encoding, over the photo
 * size limit): any refusal but a body too large for any upload.
 */
export function mayRetryAsDocument(error: unknown): boolean {
  return uploadRefusal(error) !== undefined && (error as GrammyError).error_code !== BODY_TOO_LARGE;
}
