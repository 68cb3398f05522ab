// The Microsoft Graph calls the account makes, through @microsoft/microsoft-graph-client (its request builder, its
// GraphError). Its chain is ours: a middleware that sets the Bearer token (the library's AuthenticationHandler
// attaches tokens to Microsoft's own hosts only, and GraphURL may name another) and a timeout, then the library's
// HTTPMessageHandler — without its RetryHandler, because waiting out a 429 is the core's queue's job.
import { Client, HTTPMessageHandler, type Middleware } from "@microsoft/microsoft-graph-client";

const CALL_TIMEOUT_MS = 30_000;
/** Graph's largest page of channel messages. */
const PAGE_SIZE = 50;

export interface GraphPage {
  value: unknown;
  /** The next page's path (after /v1.0), if any. */
  next: string | undefined;
}

export class TeamsGraph {
  readonly #client: Client;
  readonly #team: string;

  constructor(graphUrl: string, teamId: string, accessToken: () => Promise<string>) {
    this.#team = `/teams/${encodeURIComponent(teamId)}`;
    const bearer: Middleware & { next?: Middleware } = {
      async execute(context) {
        const headers = new Headers(context.options?.headers as ConstructorParameters<typeof Headers>[0]);
        headers.set("Authorization", `Bearer ${await accessToken()}`);
        const signal = context.options?.signal ?? AbortSignal.timeout(CALL_TIMEOUT_MS);
        context.options = { ...context.options, headers, signal };
        await bearer.next?.execute(context);
      },
      setNext(next) {
        bearer.next = next;
      },
    };
    this.#client = Client.initWithMiddleware({
      baseUrl: `${graphUrl.replace(/\/+$/, "")}/`,
      defaultVersion: "v1.0",
      middleware: [bearer, new HTTPMessageHandler()],
    });
  }

  me = (): Promise<unknown> => this.#client.api("/me").get();
  team = (): Promise<unknown> => this.#client.api(this.#team).get();
  channel = (id: string): Promise<unknown> => this.#client.api(this.#channel(id)).get();

  /** A page of threads (roots with their replies), newest activity first; `next` from a previous page. */
  async threads(channelId: string, next?: string): Promise<GraphPage> {
    const request =
      next === undefined
        ? this.#client
            .api(`${this.#channel(channelId)}/messages`)
            .top(PAGE_SIZE)
            .expand("replies")
        : this.#client.api(next);
    const page = (await request.get()) as { value?: unknown; "@odata.nextLink"?: unknown };
    const link = page["@odata.nextLink"];
    return { value: page.value, next: typeof link === "string" ? relativeLink(link) : undefined };
  }

  post(channelId: string, html: string, replyTo?: string): Promise<unknown> {
    const path = `${this.#channel(channelId)}/messages${replyTo ? `/${encodeURIComponent(replyTo)}/replies` : ""}`;
    return this.#client.api(path).post({ body: { contentType: "html", content: html } });
  }

  async update(channelId: string, id: MessageRef, html: string): Promise<void> {
    await this.#client.api(this.#message(channelId, id)).patch({ body: { contentType: "html", content: html } });
  }

  async softDelete(channelId: string, id: MessageRef): Promise<void> {
    await this.#client.api(`${this.#message(channelId, id)}/softDelete`).post({});
  }

  #channel(id: string): string {
    return `${this.#team}/channels/${encodeURIComponent(id)}`;
  }

  #message(channelId: string, id: MessageRef): string {
    const root = `${this.#channel(channelId)}/messages/${encodeURIComponent(id.root)}`;
    return id.reply === undefined ? root : `${root}/replies/${encodeURIComponent(id.reply)}`;
  }
}

/** A message of a channel: a root, or a reply in a root's thread. */
export interface MessageRef {
  root: string;
  reply?: string;
}

/**
 * The bridge's id of a Teams message: the root's id, or "root/reply" for a reply (Graph needs both to reach it).
 */
export const bridgeId = (ref: MessageRef): string => (ref.reply === undefined ? ref.root : `${ref.root}/${ref.reply}`);

export function parseBridgeId(id: string): MessageRef {
  const slash = id.indexOf("/");
  return slash < 0 ? { root: id } : { root: id.slice(0, slash), reply: id.slice(slash + 1) };
}

/** A nextLink as a path the client resolves against GraphURL (it treats only https:// addresses as absolute). */
function relativeLink(link: string): string {
  const url = new URL(link);
  const at = url.pathname.indexOf("/v1.0/");
  return `${at < 0 ? url.pathname : url.pathname.slice(at + "/v1.0".length)}${url.search}`;
}
