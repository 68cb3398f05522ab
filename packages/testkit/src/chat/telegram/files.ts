// Files on the simulated Telegram: what humans post (photos, documents) and what bots upload (sendPhoto,
// sendDocument as multipart/form-data), kept by file_id; getFile gives a file_path, and the bytes are served at
// GET /file/bot<token>/<file_path>, as on the Bot API (the path is only served to a bot's token).
import { randomBytes } from "node:crypto";

/** A file part of a multipart request, as the simulator's parameter reader gives it. */
export interface UploadedFile {
  name: string;
  data: Buffer;
  contentType: string;
}

export interface StoredFile {
  file_id: string;
  file_unique_id: string;
  file_path: string;
  name: string;
  data: Buffer;
}

export class FileStore {
  readonly #byId = new Map<string, StoredFile>();
  readonly #byPath = new Map<string, StoredFile>();
  #next = 0;

  add(name: string, data: Buffer, kind: "photos" | "documents"): StoredFile {
    this.#next++;
    const ext = /\.[A-Za-z0-9]{1,8}$/.exec(name)?.[0] ?? "";
    const file: StoredFile = {
      file_id: `AgAC${randomBytes(12).toString("base64url")}`,
      file_unique_id: `AQAD${this.#next}`,
      file_path: `${kind}/file_${this.#next}${ext}`,
      name,
      data,
    };
    this.#byId.set(file.file_id, file);
    this.#byPath.set(file.file_path, file);
    return file;
  }

  byId(fileId: string): StoredFile | undefined {
    return this.#byId.get(fileId);
  }

  byPath(path: string): StoredFile | undefined {
    return this.#byPath.get(path);
  }
}

export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === "object" && value !== null && Buffer.isBuffer((value as { data?: unknown }).data);
}

/** The message fields of a photo (its sizes; one here) or a document. */
export function mediaFields(file: StoredFile, kind: "photos" | "documents"): Record<string, unknown> {
  const common = { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.data.length };
  return kind === "photos"
    ? { photo: [{ ...common, width: 640, height: 480 }] }
    : { document: { ...common, file_name: file.name, mime_type: "application/octet-stream" } };
}

/**
 * multipart/form-data read as leniently as the Bot API does: header names in any case, without spaces after the
 * colon or the semicolons, and unquoted names and filenames (grammy writes `filename=x.png`, which the WHATWG
 * parser refuses). A field may name a file part by "attach://<part name>", as the Bot API allows.
 */
export function readMultipart(body: Buffer, contentType: string): Record<string, string | UploadedFile> {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (marker === undefined) return {};
  const parts: Record<string, string | UploadedFile> = {};
  const delimiter = Buffer.from(`--${marker}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    // The part between the delimiter's CRLF and the CRLF before the next delimiter.
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    if (split >= 0) {
      const headers = part.subarray(0, split).toString("utf8");
      const data = part.subarray(split + 4);
      const disposition = /content-disposition\s*:([^\r\n]*)/i.exec(headers)?.[1] ?? "";
      const name = /;\s*name=(?:"([^"]*)"|([^;\s]+))/i.exec(disposition);
      const filename = /;\s*filename=(?:"([^"]*)"|([^;\r\n]+))/i.exec(disposition);
      const type = /content-type\s*:\s*([^\r\n]*)/i.exec(headers)?.[1] ?? "application/octet-stream";
      const key = name?.[1] ?? name?.[2];
      if (key !== undefined) {
        parts[key] =
          filename === null
            ? data.toString("utf8")
            : { name: (filename[1] ?? filename[2] ?? "").trim(), data: Buffer.from(data), contentType: type };
      }
    }
    at = next;
  }
  for (const [key, value] of Object.entries(parts)) {
    const attached = typeof value === "string" ? /^attach:\/\/(.+)$/.exec(value)?.[1] : undefined;
    if (attached !== undefined && parts[attached] !== undefined) parts[key] = parts[attached];
  }
  return parts;
}
