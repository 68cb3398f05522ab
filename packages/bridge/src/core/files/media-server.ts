// Matterbridge's media server: each file stored once, under `<first 8 hex digits of its SHA-1>/<name>`, either
// PUT to MediaServerUpload or written below MediaDownloadPath, and linked as `MediaServerDownload/<sha>/<name>`.
// The name is Matterbridge's: every run of characters other than [a-zA-Z0-9] in it becomes "_", the extension kept
// (here only when it is a plain one, so no path or odd character can come from another platform).
import { createHash } from "node:crypto";
import { constants, createReadStream } from "node:fs";
import { copyFile, lstat, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { filesHttp } from "./http-agent.ts";

export interface MediaServerSettings {
  /** Base URL files are PUT to ("" = write them below `downloadPath` instead). */
  upload: string;
  /** Folder files are written below, when `upload` is "". */
  downloadPath: string;
  /** Base URL they are linked from. */
  download: string;
}

const UPLOAD_TIMEOUT_MS = 30_000;

/** Matterbridge's file name on the media server. */
export function mediaServerName(name: string): string {
  const dot = name.lastIndexOf(".");
  const rawExt = dot > 0 ? name.slice(dot) : "";
  const ext = /^\.[A-Za-z0-9]{1,16}$/.test(rawExt) ? rawExt : "";
  const stem = (rawExt === "" ? name : name.slice(0, dot)).replace(/[^a-zA-Z0-9]+/g, "_");
  return `${stem === "" ? "file" : stem}${ext}`;
}

/** The first 8 hex digits of the SHA-1 of the file at `path` (Matterbridge's folder name). */
async function shortSha1(path: string): Promise<string> {
  const hash = createHash("sha1");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex").slice(0, 8);
}

/** Stores the file at `path` as `name`; resolves with its SHA and its link. */
export async function storeOnMediaServer(
  path: string,
  name: string,
  settings: MediaServerSettings,
): Promise<{ sha: string; url: string }> {
  const sha = await shortSha1(path);
  const safeName = mediaServerName(name);
  if (settings.upload !== "") {
    const { request, dispatcher } = await filesHttp();
    const response = await request(`${settings.upload.replace(/\/+$/, "")}/${sha}/${encodeURIComponent(safeName)}`, {
      method: "PUT",
      dispatcher,
      headers: { "content-type": "binary/octet-stream" },
      body: createReadStream(path),
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
    });
    await response.body.dump();
    if (response.statusCode >= 300) throw new Error(`MediaServerUpload answered HTTP ${response.statusCode}`);
  } else {
    await storeInFolder(path, join(settings.downloadPath, sha), safeName);
  }
  return { sha, url: `${settings.download.replace(/\/+$/, "")}/${sha}/${safeName}` };
}

/**
 * Copies into `<MediaDownloadPath>/<sha>/<name>` without ever writing through a link someone planted there: the
 * folder must be a real folder, and the file is created exclusively. The same sha and name is the same content, so a
 * regular file already there is the file.
 */
async function storeInFolder(path: string, folder: string, name: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  if (!(await lstat(folder)).isDirectory()) throw new Error(`${folder} is not a folder (a link?); not stored`);
  const target = join(folder, name);
  try {
    await copyFile(path, target, constants.COPYFILE_EXCL);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !(await lstat(target)).isFile()) throw error;
  }
}
