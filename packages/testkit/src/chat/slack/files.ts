// Files on the simulated Slack workspace: what humans share (a message with `files`, subtype file_share) and what
// apps upload with the current flow (files.getUploadURLExternal → the bytes POSTed to the upload_url →
// files.completeUploadExternal). Bytes are served at url_private (/files-pri/<team>-<id>/<name>) only to a request
// with a workspace app's bot token as `Authorization: Bearer`, as on Slack.
import { randomBytes } from "node:crypto";

/** Slack's file object, as message events and API answers show it (api.slack.com/types/file). */
export interface FileObject {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  url_private: string;
  url_private_download: string;
  permalink: string;
}

export interface StoredSlackFile {
  object: FileObject;
  data: Buffer;
}

/** A file reserved by files.getUploadURLExternal, waiting for its bytes and its completion. */
interface PendingUpload {
  id: string;
  name: string;
  length: number;
  appToken: string;
  data?: Buffer;
}

const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

export class SlackFiles {
  readonly #stored = new Map<string, StoredSlackFile>();
  readonly #pending = new Map<string, PendingUpload>();
  readonly #base: () => string;
  readonly #team: string;
  #next = 0;

  constructor(team: string, base: () => string) {
    this.#team = team;
    this.#base = base;
  }

  newId(): string {
    this.#next++;
    return `F${String(this.#next).padStart(4, "0")}${randomBytes(3).toString("hex").toUpperCase()}`;
  }

  /** Keeps a file's bytes and returns its file object. */
  store(name: string, data: Buffer, id = this.newId()): FileObject {
    const ext = /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]?.toLowerCase() ?? "";
    const safe = encodeURIComponent(name);
    const url = `${this.#base()}/files-pri/${this.#team}-${id}/${safe}`;
    const object: FileObject = {
      id,
      name,
      title: name,
      mimetype: TYPES[ext] ?? "application/octet-stream",
      filetype: ext === "" ? "binary" : ext,
      size: data.length,
      url_private: url,
      url_private_download: `${this.#base()}/files-pri/${this.#team}-${id}/download/${safe}`,
      permalink: `https://switchboard-sim.slack.com/files/${this.#team}/${id}/${safe}`,
    };
    this.#stored.set(id, { object, data });
    return object;
  }

  /** The file a url_private (or url_private_download) path names. */
  byPath(pathname: string): StoredSlackFile | undefined {
    const id = /^\/files-pri\/[^/-]+-([^/]+)\//.exec(pathname)?.[1];
    return id === undefined ? undefined : this.#stored.get(id);
  }

  byId(id: string): StoredSlackFile | undefined {
    return this.#stored.get(id);
  }

  /** files.getUploadURLExternal: a file id and the URL its bytes go to. */
  reserve(name: string, length: number, appToken: string): { id: string; uploadPath: string } {
    const id = this.newId();
    this.#pending.set(id, { id, name, length, appToken });
    return { id, uploadPath: `/upload/v1/${id}` };
  }

  /** The bytes POSTed to an upload URL; false when it names no reserved file. */
  receive(pathname: string, data: Buffer): boolean {
    const id = /^\/upload\/v1\/([^/]+)$/.exec(pathname)?.[1];
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (pending === undefined) return false;
    pending.data = data;
    return true;
  }

  /** files.completeUploadExternal for one file: stored under its title, or why not. */
  complete(id: string, title: string | undefined, appToken: string): FileObject | string {
    const pending = this.#pending.get(id);
    if (pending === undefined || pending.appToken !== appToken) return "file_not_found";
    if (pending.data === undefined) return "file_upload_not_found";
    if (pending.data.length !== pending.length) return "file_size_mismatch";
    this.#pending.delete(id);
    const object = this.store(pending.name, pending.data, id);
    if (title) object.title = title;
    return object;
  }
}
