// Files uploaded to the XMPP server's HTTP File Upload service (XEP-0363), one connection's worth: the service is
// discovered once per connection (on the first file), then each file gets a slot and is PUT there; its GET URL is
// what the room is sent. A file the service cannot take (over its max-file-size, a refused slot, a failed PUT) goes
// as its link instead, with at most one log line a minute for the account (RefusedUploads); a server without the
// service is said once per connection. A connection lost during an upload is an error: the queue retries the
// message once the account is back, rather than giving the file up.
import type { Logger } from "pino";
import { type LocalFile, markNotUploaded } from "../../core/files/local-file.ts";
import type { RefusedUploads } from "../upload-fallback.ts";
import { discoverUploadService, type IqGet, type UploadService } from "./upload-discovery.ts";
import { DEFAULT_PUT_LIMITS, type PutLimits, putFile } from "./upload-put.ts";
import { parseSlot, slotFailure, slotRequest } from "./upload-slot.ts";

export interface HttpUploadsOptions {
  /** The server's domain, where discovery starts. */
  domain: string;
  /** IQ gets on this connection, each bounded by its own timeout. */
  get: IqGet;
  /** Whether this connection is still the account's live one. */
  alive(): boolean;
  logger: Logger;
  /** The account's record of refused files (it outlives connections). */
  refused: RefusedUploads;
  put?: PutLimits;
}

export class HttpUploads {
  readonly #options: HttpUploadsOptions;
  #service: Promise<UploadService | undefined> | undefined;
  /** Ends the PUTs in flight when the connection goes away. */
  readonly #closed = new AbortController();

  constructor(options: HttpUploadsOptions) {
    this.#options = options;
  }

  /** The file's GET URL once uploaded; undefined when it is to go as its link (already logged). */
  async upload(file: LocalFile): Promise<string | undefined> {
    const { refused } = this.#options;
    if (refused.has(file)) return undefined;
    const service = await this.#discover();
    if (service === undefined) {
      // Sent as its link (said once per connection), so not counted as uploaded bytes.
      markNotUploaded(file);
      return undefined;
    }
    if (service.maxFileSize !== undefined && file.size > service.maxFileSize) {
      refused.record([file], `larger than the server's upload limit (${file.size} > ${service.maxFileSize} bytes)`);
      return undefined;
    }
    let reply: Awaited<ReturnType<IqGet>>;
    try {
      reply = await this.#options.get(service.jid, slotRequest(file));
    } catch (error) {
      this.#stillAlive();
      refused.record([file], `no upload slot: ${slotFailure(error)}`);
      return undefined;
    }
    const slot = parseSlot(reply);
    if (slot === undefined) {
      refused.record([file], "the upload service's slot has no usable PUT and GET URLs");
      return undefined;
    }
    try {
      await putFile(slot, file, this.#options.put ?? DEFAULT_PUT_LIMITS, this.#closed.signal);
    } catch (error) {
      this.#stillAlive();
      refused.record([file], `the PUT to the upload service failed: ${(error as Error).message}`);
      return undefined;
    }
    return slot.getUrl;
  }

  /** The service, asked for once per connection (said once in the log). */
  async #discover(): Promise<UploadService | undefined> {
    this.#service ??= discoverUploadService(this.#options.get, this.#options.domain).then((service) => {
      const { logger, domain, alive } = this.#options;
      if (!alive()) return undefined;
      if (service === undefined) {
        logger.info({ domain }, `${domain} offers no HTTP File Upload (XEP-0363): files are sent as links`);
      } else {
        const limit = service.maxFileSize === undefined ? "" : `, files up to ${service.maxFileSize} bytes`;
        logger.info(
          { service: service.jid, maxFileSize: service.maxFileSize },
          `HTTP File Upload: ${service.jid}${limit}`,
        );
      }
      return service;
    });
    const service = await this.#service;
    this.#stillAlive();
    return service;
  }

  /** The connection goes away: uploads in flight are cut short (their message is retried after the reconnect). */
  close(): void {
    this.#closed.abort();
  }

  /** Throws when the connection is gone: what failed is then the link, not the file. */
  #stillAlive(): void {
    if (!this.#options.alive() || this.#closed.signal.aborted)
      throw new Error("the connection was lost during a file upload");
  }
}
