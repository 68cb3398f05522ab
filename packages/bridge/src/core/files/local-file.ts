// A relayed file's bytes on local disk, as destinations get them to upload: read from disk when uploaded (a Blob
// backed by the file, or a stream), never held in memory as a whole.
import { createReadStream, openAsBlob } from "node:fs";
import type { Readable } from "node:stream";
import { mediaTypeOf } from "./file-info.ts";

export interface LocalFile {
  /** The file's name as the source gave it (shown by the destination). */
  readonly name: string;
  readonly size: number;
  /** The caption the source gave the file ("" when none). */
  readonly comment: string;
  /** Its media type, from its name (image/png...), else application/octet-stream. */
  readonly mediaType: string;
  readonly isImage: boolean;
  /** A link to show instead when the destination refuses the upload ("" when there is none). */
  readonly link: string;
  /** A Blob reading the file from disk (for FormData bodies). */
  blob(): Promise<Blob>;
  stream(): Readable;
}

export function localFile(
  path: string,
  fields: { name: string; size: number; comment: string; link: string },
): LocalFile {
  const mediaType = mediaTypeOf(fields.name);
  return {
    ...fields,
    mediaType,
    isImage: mediaType.startsWith("image/"),
    blob: () => openAsBlob(path, { type: mediaType }),
    stream: () => createReadStream(path),
  };
}

/**
 * The files a destination account did not upload after all (the platform refused them, or offers no upload):
 * they went as their links, and are not counted as relayed bytes. Each account gets its own copy of a file
 * (`accountCopy`), so a refusal by one account says nothing of the others.
 */
const notUploaded = new WeakSet<LocalFile>();

/** An account's own copy of a relayed file (the same bytes on disk), for what that account makes of it. */
export function accountCopy(file: LocalFile): LocalFile {
  return { ...file };
}

/** The account holding this copy did not upload it (a protocol reports it; see accounts/upload-fallback.ts). */
export function markNotUploaded(file: LocalFile): void {
  notUploaded.add(file);
}

/** The bytes of the files their account uploaded. */
export function uploadedBytes(files: readonly LocalFile[]): number {
  let bytes = 0;
  for (const file of files) if (!notUploaded.has(file)) bytes += file.size;
  return bytes;
}
