// The fake homeserver's media repository: POST /_matrix/media/v3/upload (the raw bytes, Content-Type, ?filename=;
// answers the content_uri, or 413 M_TOO_LARGE over the server's limit), and downloads both ways a client may ask:
// the authenticated /_matrix/client/v1/media/download/{server}/{id}[/{name}] (Matrix 1.11, access token required)
// and the legacy /_matrix/media/v3/download/{server}/{id}[/{name}] (no token; a server that freezes legacy media, as
// Synapse does by default since 1.120, answers it 404 for new media: `legacyDownloads: false`).
import type { IncomingMessage, ServerResponse } from "node:http";
import { errors, MatrixHttpError } from "./errors.ts";
import { type Homeserver, randomId } from "./homeserver.ts";

export interface StoredMedia {
  mxc: string;
  data: Buffer;
  contentType: string;
  filename: string;
  uploader: string;
}

export interface MediaOptions {
  /** Uploads larger than this are refused (413 M_TOO_LARGE). */
  maxUploadBytes: number;
  /** Whether /_matrix/media/v3/download serves media (without a token). */
  legacyDownloads: boolean;
}

const UPLOAD = "/_matrix/media/v3/upload";
const AUTHED_DOWNLOAD = /^\/_matrix\/client\/v1\/media\/download\/([^/]+)\/([^/]+)(?:\/[^/]*)?$/;
const LEGACY_DOWNLOAD = /^\/_matrix\/media\/v3\/download\/([^/]+)\/([^/]+)(?:\/[^/]*)?$/;

export class MediaRepository {
  readonly #media = new Map<string, StoredMedia>();
  readonly #server: Homeserver;
  readonly #options: MediaOptions;

  constructor(server: Homeserver, options: MediaOptions) {
    this.#server = server;
    this.#options = options;
  }

  /** Whether this request is the media repository's. */
  handles(path: string): boolean {
    return path === UPLOAD || AUTHED_DOWNLOAD.test(path) || LEGACY_DOWNLOAD.test(path);
  }

  /** Stores bytes as `uploader` would have uploaded them; returns the mxc:// URI. */
  store(data: Buffer, contentType: string, filename: string, uploader: string): string {
    const mxc = `mxc://${this.#server.serverName}/${randomId(16)}`;
    this.#media.set(mxc, { mxc, data, contentType, filename, uploader });
    return mxc;
  }

  get(mxc: string): StoredMedia | undefined {
    return this.#media.get(mxc);
  }

  /** Answers a media request; `token` is the request's access token, if any. Throws MatrixHttpError. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams, token?: string) {
    const session = token === undefined ? undefined : this.#server.sessions.get(token);
    if (path === UPLOAD && req.method === "POST") {
      if (token === undefined) throw errors.missingToken();
      if (session === undefined) throw errors.unknownToken();
      const data = await readBytes(req, this.#options.maxUploadBytes);
      const type = req.headers["content-type"] ?? "application/octet-stream";
      const mxc = this.store(data, type, query.get("filename") ?? "", session.userId);
      return { content_uri: mxc };
    }
    if (req.method !== "GET") throw errors.methodNotAllowed();
    const authed = AUTHED_DOWNLOAD.exec(path);
    if (authed !== null) {
      if (token === undefined) throw errors.missingToken();
      if (session === undefined) throw errors.unknownToken();
    } else if (!this.#options.legacyDownloads) {
      throw errors.notFound("Not found");
    }
    const [, server, id] = (authed ?? LEGACY_DOWNLOAD.exec(path)) as RegExpExecArray;
    const media = this.#media.get(`mxc://${server}/${id}`);
    if (media === undefined) throw errors.notFound("Not found");
    res.writeHead(200, {
      "content-type": media.contentType,
      "content-length": media.data.length,
      "content-disposition": `attachment; filename*=utf-8''${encodeURIComponent(media.filename)}`,
    });
    res.end(media.data);
    return undefined;
  }
}

async function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new MatrixHttpError(413, "M_TOO_LARGE", "File size limit exceeded");
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
