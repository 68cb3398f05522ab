// Files on the simulated Mattermost server: uploaded with POST /api/v4/files (multipart: channel_id and `files`
// parts; 201 with file_infos), attached to one post by its file_ids (the post's metadata.files then lists them),
// and served at GET /api/v4/files/{id} to members of the file's channel. A file larger than the server's
// MaxFileSize is refused with 413, as Mattermost does.

/** Mattermost's FileInfo, as API answers and post metadata show it. */
export interface FileInfoObject {
  id: string;
  user_id: string;
  channel_id: string;
  post_id: string;
  create_at: number;
  update_at: number;
  delete_at: number;
  name: string;
  extension: string;
  size: number;
  mime_type: string;
  width: number;
  height: number;
  has_preview_image: boolean;
}

export interface StoredMattermostFile {
  info: FileInfoObject;
  data: Buffer;
}

const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

export class MattermostFiles {
  readonly #files = new Map<string, StoredMattermostFile>();

  add(id: string, fields: { name: string; data: Buffer; userId: string; channelId: string; at: number }) {
    const extension = /\.([A-Za-z0-9]{1,8})$/.exec(fields.name)?.[1]?.toLowerCase() ?? "";
    const mime = TYPES[extension] ?? "application/octet-stream";
    const info: FileInfoObject = {
      id,
      user_id: fields.userId,
      channel_id: fields.channelId,
      post_id: "",
      create_at: fields.at,
      update_at: fields.at,
      delete_at: 0,
      name: fields.name,
      extension,
      size: fields.data.length,
      mime_type: mime,
      width: mime.startsWith("image/") ? 640 : 0,
      height: mime.startsWith("image/") ? 480 : 0,
      has_preview_image: mime.startsWith("image/"),
    };
    this.#files.set(id, { info, data: fields.data });
    return info;
  }

  get(id: string): StoredMattermostFile | undefined {
    return this.#files.get(id);
  }
}
