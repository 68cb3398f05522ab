// Matterbridge's FileInfo, the entries of `Extra.file`: what a message carries about each attached file. Sources
// fill them from the platform's attachments (NativeID: the platform's own handle, which only the source account
// can turn into a download); the core reads them back defensively, as an api client or a state file wrote them.
import type { Message } from "../../message.ts";

export interface FileInfo {
  Name: string;
  /** Base64 of the bytes (the api account accepts files this way); null when the bytes are elsewhere. */
  Data: string | null;
  Comment: string;
  /** A link people can open; "" when the platform has none that works without the bridge's credentials. */
  URL: string;
  Size: number;
  Avatar: boolean;
  /** The first 8 hex digits of the SHA-1 of the bytes, once stored on the media server. */
  SHA: string;
  /** The platform's handle of the file (a Telegram file_id, a Matrix mxc:// URI...), for its source's download. */
  NativeID: string;
}

/** A FileInfo with Matterbridge's 8 keys in their order, from what a protocol knows. */
export function fileInfo(fields: Partial<FileInfo> & { Name: string }): FileInfo {
  return {
    Name: fields.Name,
    Data: fields.Data ?? null,
    Comment: fields.Comment ?? "",
    URL: fields.URL ?? "",
    Size: fields.Size ?? 0,
    Avatar: fields.Avatar ?? false,
    SHA: fields.SHA ?? "",
    NativeID: fields.NativeID ?? "",
  };
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** The message's files; entries that are not objects are skipped, fields of the wrong type read as empty. */
export function filesOf(message: Message): FileInfo[] {
  const entries = message.Extra?.["file"];
  if (!Array.isArray(entries)) return [];
  const files: FileInfo[] = [];
  for (const entry of entries) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) continue;
    const fields = entry as Record<string, unknown>;
    const size = fields["Size"];
    files.push({
      Name: text(fields["Name"]),
      Data: typeof fields["Data"] === "string" ? fields["Data"] : null,
      Comment: text(fields["Comment"]),
      URL: text(fields["URL"]),
      Size: typeof size === "number" && Number.isSafeInteger(size) && size >= 0 ? size : 0,
      Avatar: fields["Avatar"] === true,
      SHA: text(fields["SHA"]),
      NativeID: text(fields["NativeID"]),
    });
  }
  return files;
}

/** `extra` with its file list replaced (removed when `files` is empty); other keys kept. */
export function withFiles(extra: Message["Extra"], files: readonly FileInfo[]): Message["Extra"] {
  const rest: Record<string, unknown[]> = {};
  for (const [key, value] of Object.entries(extra ?? {})) if (key !== "file") rest[key] = value;
  if (files.length > 0) rest["file"] = [...files];
  return Object.keys(rest).length > 0 ? rest : null;
}

/** Extensions of pictures most platforms show inline (Telegram's sendPhoto, Matrix's m.image, Discord's preview). */
const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".jpe": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** The file's media type as its name says (an image type, else application/octet-stream). */
export function mediaTypeOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return (dot >= 0 ? IMAGE_TYPES[name.slice(dot).toLowerCase()] : undefined) ?? "application/octet-stream";
}
