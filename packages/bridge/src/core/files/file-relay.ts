// Files relayed between platforms, once per message whatever the number of destinations: each file of a received
// message is fetched from its source (with the source account's credentials, through its `fileRequest`), bounded
// by MediaDownloadSize and a shared limit on concurrent downloads, into a private temporary file. With a media
// server configured it is stored there and every destination gets the link; otherwise destinations that upload get
// the local file, the others the file's own link. A file that cannot be fetched costs only itself: one log line,
// and the message goes on with its text (and the link, when the file has one).
import { writeFile } from "node:fs/promises";
import { thrownMessage } from "@switchboard/common";
import type { Logger } from "pino";
import { DEFAULT_DOWNLOAD_LIMITS, type DownloadLimits, download, type FileRequest } from "./download.ts";
import type { FileInfo } from "./file-info.ts";
import { Limiter } from "./limiter.ts";
import { type LocalFile, localFile } from "./local-file.ts";
import { type MediaServerSettings, storeOnMediaServer } from "./media-server.ts";
import { TempFolder } from "./temp-folder.ts";

export interface FileRelaySettings {
  /** MediaDownloadSize: files larger than this are not fetched. */
  maxBytes: number;
  /** MediaDownloadBlackList: files whose name matches one are not fetched. */
  blackList: readonly RegExp[];
  /** Set when MediaServerUpload, or MediaDownloadPath, and MediaServerDownload are. */
  mediaServer: MediaServerSettings | undefined;
  /** Downloads (and media server stores) at once, across the bridge. */
  concurrency: number;
  limits: Omit<DownloadLimits, "maxBytes">;
}

const DEFAULT_CONCURRENCY = 4;

/** The account a message came from, as far as fetching its files goes. */
export interface FileSource {
  readonly id: string;
  /** Where the bytes of a file this account received are, with its credentials; undefined: it cannot tell. */
  fileRequest?(file: FileInfo): FileRequest | undefined | Promise<FileRequest | undefined>;
}

/** One file of a message after relaying: its FileInfo (with the media server's URL and SHA once stored there),
 * and the local copy when destinations may upload it. */
export interface RelayedFile {
  info: FileInfo;
  local?: LocalFile;
}

/** A message's files being relayed; the local copies are removed once every holder released them. */
export class PreparedFiles {
  readonly ready: Promise<readonly RelayedFile[]>;
  #holders = 1;
  #cleanup: () => void = () => {};

  constructor(work: Promise<{ files: readonly RelayedFile[]; cleanup: () => void }>) {
    this.ready = work.then(({ files, cleanup }) => {
      this.#cleanup = cleanup;
      if (this.#holders === 0) cleanup();
      return files;
    });
  }

  /** One more destination will read the files. */
  hold(): void {
    this.#holders++;
  }

  /** A destination is done with them (sent, or given up); the last one removes the local copies. */
  release(): void {
    if (this.#holders === 0) return;
    this.#holders--;
    if (this.#holders === 0) this.#cleanup();
  }
}

export class FileRelay {
  readonly #settings: FileRelaySettings;
  readonly #logger: Logger;
  readonly #limiter: Limiter;
  readonly #temp = new TempFolder();

  constructor(settings: FileRelaySettings, logger: Logger) {
    this.#settings = settings;
    this.#logger = logger;
    this.#limiter = new Limiter(settings.concurrency);
  }

  /** Starts relaying `files` of a message from `source`; the caller holds the result once (release it). */
  prepare(source: FileSource, files: readonly FileInfo[]): PreparedFiles {
    const paths: string[] = [];
    const work = Promise.all(files.map((file, index) => this.#relay(source, file, index, paths))).then((relayed) => ({
      files: relayed,
      cleanup: () => {
        for (const path of paths) void this.#temp.remove(path);
      },
    }));
    return new PreparedFiles(work);
  }

  /** Removes the temporary folder (the bridge stops). */
  close(): void {
    this.#temp.close();
  }

  async #relay(source: FileSource, file: FileInfo, index: number, paths: string[]): Promise<RelayedFile> {
    const name = file.Name === "" ? `file ${index + 1}` : file.Name;
    const settings = this.#settings;
    if (settings.blackList.some((pattern) => pattern.test(file.Name))) {
      this.#logger.info({ account: source.id, file: name }, `file ${name} not relayed: MediaDownloadBlackList`);
      return { info: file };
    }
    if (file.Size > settings.maxBytes) {
      this.#skip(source, name, `larger than MediaDownloadSize (${file.Size} > ${settings.maxBytes} bytes)`);
      return { info: file };
    }
    const path = this.#temp.newPath();
    let size: number;
    try {
      const fetched = await this.#fetch(source, file, path);
      if (fetched === undefined) return { info: file };
      paths.push(path);
      size = fetched;
    } catch (error) {
      this.#skip(source, name, thrownMessage(error));
      return { info: file };
    }
    const local = localFile(path, { name, size, comment: file.Comment, link: file.URL });
    if (settings.mediaServer === undefined) return { info: { ...file, Size: size }, local };
    try {
      const stored = await this.#limiter.run(() =>
        storeOnMediaServer(path, name, settings.mediaServer as MediaServerSettings),
      );
      return { info: { ...file, Size: size, URL: stored.url, SHA: stored.sha } };
    } catch (error) {
      // Destinations that upload still can; the others get the file's own link.
      this.#skip(source, name, `media server: ${thrownMessage(error)}`);
      return { info: { ...file, Size: size }, local };
    }
  }

  /** The file's bytes into `path`; its size, or undefined when its source cannot fetch it (it stays a link). */
  async #fetch(source: FileSource, file: FileInfo, path: string): Promise<number | undefined> {
    const maxBytes = this.#settings.maxBytes;
    if (file.Data !== null) {
      const bytes = Buffer.from(file.Data, "base64");
      if (bytes.length > maxBytes)
        throw new Error(`larger than MediaDownloadSize (${bytes.length} > ${maxBytes} bytes)`);
      await writeFile(path, bytes, { flag: "wx", mode: 0o600 });
      return bytes.length;
    }
    const request = await source.fileRequest?.(file);
    if (request === undefined) return undefined;
    const limits = { ...this.#settings.limits, maxBytes };
    const fetched = await this.#limiter.run(() => download(request, path, limits));
    return fetched.size;
  }

  #skip(source: FileSource, name: string, reason: string): void {
    this.#logger.warn(
      { account: source.id, file: name, reason },
      `file ${name} from ${source.id} not relayed: ${reason}`,
    );
  }
}

export const DEFAULT_FILE_RELAY: FileRelaySettings = {
  maxBytes: 1_000_000,
  blackList: [],
  mediaServer: undefined,
  concurrency: DEFAULT_CONCURRENCY,
  limits: DEFAULT_DOWNLOAD_LIMITS,
};
