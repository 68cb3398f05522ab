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

/** What a message may carry, by the field the Bot API names it with. */
export type MediaKind = "photo" | "document" | "voice" | "audio" | "video" | "video_note" | "animation" | "sticker";

/** The folder of a file_path, by kind, as the Bot API's paths read ("photos/file_3.jpg", "voice/file_4.oga"). */
const FOLDERS: Record<MediaKind, string> = {
  photo: "photos",
  document: "documents",
  voice: "voice",
  audio: "music",
  video: "videos",
  video_note: "video_notes",
  animation: "animations",
  sticker: "stickers",
};

export class FileStore {
  readonly #byId = new Map<string, StoredFile>();
  readonly #byPath = new Map<string, StoredFile>();
  #next = 0;

  add(name: string, data: Buffer, kind: MediaKind): StoredFile {
    this.#next++;
    const ext = /\.[A-Za-z0-9]{1,8}$/.exec(name)?.[0] ?? "";
    const file: StoredFile = {
      file_id: `AgAC${randomBytes(12).toString("base64url")}`,
      file_unique_id: `AQAD${this.#next}`,
      file_path: `${FOLDERS[kind]}/file_${this.#next}${ext}`,
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

/**
 * The message fields of each kind, as the Bot API sends them: a photo's sizes (one here); a document, audio, video
 * or animation with its name; a voice note, a round video note or a sticker without one. An animation (a GIF) comes
 * with a `document` too, for clients that predate animations.
 */
export function mediaFields(file: StoredFile, kind: MediaKind): Record<string, unknown> {
  const common = { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.data.length };
  const named = { ...common, file_name: file.name };
  switch (kind) {
    case "photo":
      return { photo: [{ ...common, width: 640, height: 480 }] };
    case "voice":
      return { voice: { ...common, duration: 3, mime_type: "audio/ogg" } };
    case "audio":
      return { audio: { ...named, duration: 180, mime_type: "audio/mpeg", title: file.name } };
    case "video":
      return { video: { ...named, width: 640, height: 360, duration: 10, mime_type: "video/mp4" } };
    case "video_note":
      return { video_note: { ...common, length: 240, duration: 5 } };
    case "animation": {
      const animation = { ...named, width: 320, height: 240, duration: 2, mime_type: "video/mp4" };
      return { animation, document: { ...named, mime_type: "video/mp4" } };
    }
    case "sticker": {
      const format = { is_animated: file.name.endsWith(".tgs"), is_video: file.name.endsWith(".webm") };
      return { sticker: { ...common, type: "regular", width: 512, height: 512, ...format, emoji: "\u{1F642}" } };
    }
    default:
      return { document: { ...named, mime_type: "application/octet-stream" } };
  }
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
