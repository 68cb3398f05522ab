// The API v4 calls the mattermost account makes. @mattermost/client's Client4 builds each request (routes, the
// session header, its other headers); the transport is ours, because Client4 cannot read a rate limiter's answer
// (Mattermost's 429 is plain text: Client4 throws an error without status), cannot skip TLS verification
// (SkipTLSVerify) and writes failures to the console. Errors come out as MattermostApiError with the HTTP status,
// Mattermost's error id and message, and the wait a 429 asks for.
import mattermost from "@mattermost/client";
import type { Channel } from "@mattermost/types/channels";
import type { FileInfo, FileUploadResponse } from "@mattermost/types/files";
import type { Post, PostList } from "@mattermost/types/posts";
import type { Team } from "@mattermost/types/teams";
import type { UserProfile } from "@mattermost/types/users";
import { Agent, type Dispatcher } from "undici";

const { Client4 } = mattermost;
const CALL_TIMEOUT_MS = 30_000;

export class MattermostApiError extends Error {
  override readonly name = "MattermostApiError";
  constructor(
    readonly status: number,
    readonly id: string,
    message: string,
    /** For a 429: how long the server asks to wait. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The wait a 429 asks for: Retry-After, else X-Ratelimit-Reset (both in seconds), else one second. */
function retryAfterMs(headers: Headers): number {
  for (const name of ["retry-after", "x-ratelimit-reset"]) {
    const seconds = Number(headers.get(name));
    if (headers.has(name) && Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  }
  return 1000;
}

export class MattermostApi {
  readonly #client = new Client4();
  readonly #dispatcher: Dispatcher | undefined;

  constructor(
    readonly baseUrl: string,
    skipTlsVerify: boolean,
  ) {
    this.#client.setUrl(baseUrl);
    this.#dispatcher = skipTlsVerify ? new Agent({ connect: { rejectUnauthorized: false } }) : undefined;
  }

  get token(): string {
    return this.#client.getToken();
  }

  setToken(token: string): void {
    this.#client.setToken(token);
  }

  /** Logs in; the session token (from the `Token` header) is used from then on. */
  async login(loginId: string, password: string): Promise<UserProfile> {
    const { data, headers } = await this.#call<UserProfile>(`${this.#client.getUsersRoute()}/login`, "post", {
      login_id: loginId,
      password,
    });
    const token = headers.get("token");
    if (!token) throw new MattermostApiError(0, "", "the server's login answer has no Token header");
    this.#client.setToken(token);
    return data;
  }

  me = () => this.#get<UserProfile>(`${this.#client.getUsersRoute()}/me`);
  user = (id: string) => this.#get<UserProfile>(this.#client.getUserRoute(id));
  teamByName = (name: string) => this.#get<Team>(`${this.#client.getTeamsRoute()}/name/${encodeURIComponent(name)}`);
  channelByName = (teamId: string, name: string) =>
    this.#get<Channel>(`${this.#client.getTeamRoute(teamId)}/channels/name/${encodeURIComponent(name)}`);
  channel = (id: string) => this.#get<Channel>(this.#client.getChannelRoute(id));
  post = (id: string) => this.#get<Post>(this.#client.getPostRoute(id));
  postsSince = (channelId: string, since: number) =>
    this.#get<PostList>(`${this.#client.getChannelRoute(channelId)}/posts?since=${since}`);

  async joinChannel(channelId: string, userId: string): Promise<void> {
    await this.#call(this.#client.getChannelMembersRoute(channelId), "post", { user_id: userId });
  }

  async createPost(post: Partial<Post>): Promise<Post> {
    return (await this.#call<Post>(this.#client.getPostsRoute(), "post", post)).data;
  }

  /** POST /files: one file into a channel, not yet attached to a post; resolves with its FileInfo. */
  async uploadFile(channelId: string, name: string, bytes: Blob): Promise<FileInfo> {
    const form = new FormData();
    form.append("channel_id", channelId);
    form.append("files", bytes, name);
    const { data } = await this.#call<FileUploadResponse>(this.#client.getFilesRoute(), "post", form);
    const info = data.file_infos?.[0];
    if (info === undefined) throw new MattermostApiError(0, "", "the server's upload answer lists no file");
    return info;
  }

  /** Where an attached file's bytes are, with the session's credentials. */
  fileDownload(fileId: string): { url: string; headers: Record<string, string> } {
    return { url: this.#client.getFileRoute(fileId), headers: { authorization: `Bearer ${this.#client.getToken()}` } };
  }

  async patchPost(id: string, message: string): Promise<Post> {
    return (await this.#call<Post>(`${this.#client.getPostRoute(id)}/patch`, "put", { id, message })).data;
  }

  async deletePost(id: string): Promise<void> {
    await this.#call(this.#client.getPostRoute(id), "delete");
  }

  async close(): Promise<void> {
    await this.#dispatcher?.close();
  }

  async #get<T>(url: string): Promise<T> {
    return (await this.#call<T>(url, "get")).data;
  }

  async #call<T>(url: string, method: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
    // A form (a file upload) goes as it is: fetch writes its multipart body and boundary.
    const payload = body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) };
    const options = this.#client.getOptions({ method, ...payload });
    // Cookies are a browser's business; the session header is enough.
    const { credentials: _credentials, ...request } = options as RequestInit;
    const response = await fetch(url, {
      ...request,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
    } as RequestInit);
    const text = await response.text();
    let data: unknown = text;
    if ((response.headers.get("content-type") ?? "").includes("json")) {
      try {
        data = JSON.parse(text);
      } catch {}
    }
    if (response.ok) return { data: data as T, headers: response.headers };
    const error = (typeof data === "object" && data !== null ? data : {}) as { id?: unknown; message?: unknown };
    const message = typeof error.message === "string" && error.message !== "" ? error.message : text.trim();
    throw new MattermostApiError(
      response.status,
      typeof error.id === "string" ? error.id : "",
      `${response.status} ${message || response.statusText}`,
      response.status === 429 ? retryAfterMs(response.headers) : undefined,
    );
  }
}
