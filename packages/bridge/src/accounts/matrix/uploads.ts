// A relayed file as Matrix events: the bytes uploaded to the media repository (POST /_matrix/media/v3/upload, through
// matrix-js-sdk), then an m.image (pictures) or m.file event naming the mxc:// URI, with info.mimetype and
// info.size. `filename` carries the name, so `body` may be a caption (Matrix 1.10): the sender's nick for a file
// sent without text, which would otherwise say nothing of who sent it.
import { HTTPError, type MatrixClient } from "matrix-js-sdk";
import type { LocalFile } from "../../core/files/local-file.ts";
import { isFileRefusalStatus } from "../upload-fallback.ts";

/** Uploads `file`; resolves with its mxc:// URI. */
export async function uploadMedia(client: MatrixClient, file: LocalFile): Promise<string> {
  const uploaded = await client.uploadContent(await file.blob(), {
    name: file.name,
    type: file.mediaType,
    includeFilename: true,
  });
  return uploaded.content_uri;
}

/** The event content showing an uploaded file; `caption` "" shows the name alone. */
export function mediaContent(file: LocalFile, mxc: string, caption: string): Record<string, unknown> {
  return {
    msgtype: file.isImage ? "m.image" : "m.file",
    body: caption === "" ? file.name : caption,
    filename: file.name,
    url: mxc,
    info: { mimetype: file.mediaType, size: file.size },
  };
}

/** Why the homeserver refused the file (413 M_TOO_LARGE and the like), or undefined for any other failure. */
export function uploadRefusal(error: unknown): string | undefined {
  if (!(error instanceof HTTPError) || error.httpStatus === undefined) return undefined;
  return isFileRefusalStatus(error.httpStatus) ? `HTTP ${error.httpStatus}: ${error.message}` : undefined;
}
