// What the Bot API refuses of uploaded files (core.telegram.org/bots/api#sending-files: "10 MB max size for photos,
// 50 MB for other files" over multipart/form-data; #sendphoto: "width and height must not exceed 10000 in total.
// Width and height ratio must be at most 20"), with the answers bots get: a body over the upload limit is 413
// "Request Entity Too Large" (tdlib/telegram-bot-api#720), a photo it cannot take is a 400 carrying Telegram's error
// name ("Bad Request: PHOTO_INVALID_DIMENSIONS"; PHOTO_SAVE_FILE_INVALID for one over the photo limit, as Telegram's
// apps get it), which a document of the same bytes is not. A test may also refuse the next uploads with any answer.
import { BotApiError, badRequest } from "./bot-api-error.ts";
import type { UploadedFile } from "./files.ts";

/** The Bot API's own limits (MB as Telegram counts them: MiB). */
const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
const UPLOAD_MAX_BYTES = 50 * 1024 * 1024;

export interface UploadLimitOptions {
  /** Largest photo sendPhoto takes; default 10 MB. */
  photoMaxBytes?: number;
  /** Largest request body (a multipart upload) the server reads; default 50 MB. */
  uploadMaxBytes?: number;
}

export interface UploadRefusal {
  /** Which methods are refused; default sendPhoto and sendDocument. */
  methods?: string[];
  /** Default 413. */
  code?: number;
  /** Default "Request Entity Too Large" (with a 400: "Bad Request: file is too big"). */
  description?: string;
}

export const entityTooLarge = () => new BotApiError(413, "Request Entity Too Large");

export class UploadLimits {
  readonly photoMaxBytes: number;
  readonly uploadMaxBytes: number;
  readonly #refusals: { left: number; refusal: UploadRefusal }[] = [];

  constructor(options: UploadLimitOptions = {}) {
    this.photoMaxBytes = options.photoMaxBytes ?? PHOTO_MAX_BYTES;
    this.uploadMaxBytes = options.uploadMaxBytes ?? UPLOAD_MAX_BYTES;
  }

  /** The next `count` upload calls (of `refusal.methods`) are refused with that answer. */
  refuseNext(count: number, refusal: UploadRefusal = {}): void {
    if (count > 0) this.#refusals.push({ left: count, refusal });
  }

  /** The refusal of an upload call carrying `file`, or undefined when the Bot API takes it. */
  check(method: string, file: UploadedFile): BotApiError | undefined {
    const index = this.#refusals.findIndex(({ refusal }) =>
      (refusal.methods ?? ["sendPhoto", "sendDocument"]).some((m) => m.toLowerCase() === method.toLowerCase()),
    );
    const queued = this.#refusals[index];
    if (queued !== undefined) {
      if (--queued.left <= 0) this.#refusals.splice(index, 1);
      const code = queued.refusal.code ?? 413;
      const description =
        queued.refusal.description ?? (code === 413 ? "Request Entity Too Large" : "Bad Request: file is too big");
      return new BotApiError(code, description);
    }
    if (method.toLowerCase() !== "sendphoto") return undefined;
    if (file.data.length > this.photoMaxBytes) return badRequest("PHOTO_SAVE_FILE_INVALID");
    const size = pngSize(file.data);
    if (size !== undefined) {
      const { width, height } = size;
      const ratio = Math.max(width, height) / Math.max(1, Math.min(width, height));
      if (width + height > 10_000 || ratio > 20) return badRequest("PHOTO_INVALID_DIMENSIONS");
    }
    return undefined;
  }
}

/** Width and height from a PNG's IHDR chunk (the only image header read here), else undefined. */
function pngSize(data: Buffer): { width: number; height: number } | undefined {
  const signature = "89504e470d0a1a0a";
  if (data.length < 24 || data.subarray(0, 8).toString("hex") !== signature) return undefined;
  if (data.subarray(12, 16).toString("latin1") !== "IHDR") return undefined;
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}
