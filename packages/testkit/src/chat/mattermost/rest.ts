// The API v4 routes the bridge uses (api.mattermost.com), answering as Mattermost does: JSON with Content-Type
// exactly "application/json" (Client4 parses nothing else), errors as {id, message, detailed_error, request_id,
// status_code}, a session token in the `Token` header of a login, and `Authorization: Bearer <token>` on the rest.
import { isUploadedFile } from "../telegram/files.ts";
import type { MattermostWorld, PostObject } from "./world.ts";
import { publicUser } from "./world.ts";

export interface RestRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  token: string | undefined;
  body: Record<string, unknown>;
}

export interface RestAnswer {
  status: number;
  /** JSON, plain text (a string), or a file's bytes (a Buffer). */
  body: unknown;
  headers?: Record<string, string>;
}

/** What the server does beside answering: tell connected clients (the WebSocket). */
export interface RestEffects {
  posted(post: PostObject): void;
  edited(post: PostObject): void;
  deleted(post: PostObject, by: string): void;
  joined(channelId: string, userId: string): void;
}

type Handler = (request: RestRequest, params: string[], me: string) => RestAnswer;
interface Route {
  method: string;
  pattern: RegExp;
  auth: boolean;
  handler: Handler;
}

export function apiError(status: number, id: string, message: string): RestAnswer {
  return {
    status,
    body: { id, message, detailed_error: "", request_id: "simulatedrequestid00000000", status_code: status },
  };
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

export interface RestLimits {
  /** The server's MaxFileSize: a larger upload is refused with 413. */
  maxFileBytes: number;
}

export function restRoutes(world: MattermostWorld, effects: RestEffects, limits: RestLimits): Route[] {
  const route = (method: string, path: string, handler: Handler, auth = true): Route => ({
    method,
    pattern: new RegExp(`^/api/v4${path.replace(/:\w+/g, "([a-z0-9_-]+)")}$`),
    auth,
    handler,
  });
  const notFound = (what: string) =>
    apiError(404, `app.${what}.missing.app_error`, `Unable to find the existing ${what.replace(/\..*/, "")}.`);
  const canSee = (channelId: string, me: string) => world.channels.get(channelId)?.members.has(me) ?? false;
  const forbidden = () =>
    apiError(403, "api.context.permissions.app_error", "You do not have the appropriate permissions.");

  return [
    route(
      "POST",
      "/users/login",
      (request) => {
        const loginId = text(request.body.login_id);
        const user = [...world.users.values()].find((u) => u.username === loginId || u.email === loginId);
        if (!user || world.passwords.get(user.id) !== text(request.body.password)) {
          return apiError(
            401,
            "api.user.login.invalid_credentials_email_username",
            "Enter a valid email or username and/or password.",
          );
        }
        return { status: 200, body: publicUser(user), headers: { Token: world.newSession(user.id) } };
      },
      false,
    ),
    route("GET", "/users/me", (_request, _params, me) => ({ status: 200, body: publicUser(world.users.get(me)!) })),
    route("GET", "/users/:id", (_request, [id]) => {
      const user = world.users.get(id!);
      return user ? { status: 200, body: publicUser(user) } : notFound("user.get");
    }),
    route("GET", "/teams/name/:name", (_request, [name]) =>
      name === world.team.name ? { status: 200, body: world.team } : notFound("team.get_by_name"),
    ),
    route("GET", "/teams/:team/channels/name/:name", (_request, [team, name]) => {
      const channel = team === world.team.id ? world.channelByName(name!) : undefined;
      return channel ? { status: 200, body: world.channelObject(channel) } : notFound("channel.get_by_name");
    }),
    route("GET", "/users/me/teams/:team/channels", (_request, [team], me) => ({
      status: 200,
      body: [...world.channels.values()]
        .filter((channel) => channel.team_id === team && channel.members.has(me))
        .map((channel) => world.channelObject(channel)),
    })),
    route("POST", "/channels/:id/members", (request, [id], me) => {
      const channel = world.channels.get(id!);
      if (!channel) return notFound("channel.get");
      const userId = text(request.body.user_id) || me;
      if (channel.type === "P" && !channel.members.has(me)) return forbidden();
      if (!channel.members.has(userId)) {
        channel.members.add(userId);
        effects.joined(channel.id, userId);
      }
      return {
        status: 201,
        body: { channel_id: channel.id, user_id: userId, roles: "channel_user", msg_count: 0, mention_count: 0 },
      };
    }),
    route("POST", "/posts", (request, _params, me) => {
      const channelId = text(request.body.channel_id);
      if (!world.channels.has(channelId)) return notFound("channel.get");
      if (!canSee(channelId, me)) return forbidden();
      const message = text(request.body.message);
      if (message.length > 16_383) {
        return apiError(400, "model.post.is_valid.message_length.app_error", "Invalid Message property for post.");
      }
      const rootId = text(request.body.root_id);
      const root = rootId === "" ? undefined : world.post(rootId);
      if (rootId !== "" && (!root || root.channel.id !== channelId || root.post.delete_at > 0)) {
        return apiError(400, "api.post.create_post.root_id.app_error", "Invalid RootId parameter.");
      }
      const props = request.body.props && typeof request.body.props === "object" ? request.body.props : {};
      const fileIds = Array.isArray(request.body.file_ids) ? request.body.file_ids.map(text) : [];
      const files = fileIds.map((id) => world.files.get(id));
      if (files.some((file) => !file || file.info.user_id !== me || file.info.post_id !== "")) {
        return apiError(400, "api.post.create_post.file_ids.app_error", "Invalid file_ids parameter.");
      }
      if (message.trim() === "" && fileIds.length === 0) {
        return apiError(400, "api.post.create_post.message.app_error", "Invalid Message property for post.");
      }
      const channel = world.channels.get(channelId)!;
      const post = world.newPost(channel, me, { message, root_id: rootId, props: props as Record<string, unknown> });
      world.attachFiles(post, fileIds);
      effects.posted(post);
      return { status: 201, body: post };
    }),
    route("GET", "/posts/:id", (_request, [id], me) => {
      const found = world.post(id!);
      if (!found || found.post.delete_at > 0) return notFound("post.get");
      return canSee(found.channel.id, me) ? { status: 200, body: found.post } : forbidden();
    }),
    route("PUT", "/posts/:id/patch", (request, [id], me) => {
      const found = world.post(id!);
      if (!found || found.post.delete_at > 0) return notFound("post.get");
      if (found.post.user_id !== me) return forbidden();
      const at = world.now();
      Object.assign(found.post, { message: text(request.body.message), edit_at: at, update_at: at });
      effects.edited(found.post);
      return { status: 200, body: found.post };
    }),
    route("DELETE", "/posts/:id", (_request, [id], me) => {
      const found = world.post(id!);
      if (!found || found.post.delete_at > 0) return notFound("post.get");
      if (found.post.user_id !== me) return forbidden();
      const at = world.now();
      Object.assign(found.post, { delete_at: at, update_at: at });
      effects.deleted(found.post, me);
      return { status: 200, body: { status: "OK" } };
    }),
    route("GET", "/channels/:id/posts", (request, [id], me) => {
      const channel = world.channels.get(id!);
      if (!channel) return notFound("channel.get");
      if (!channel.members.has(me)) return forbidden();
      const since = Number(request.query.get("since") ?? "0");
      const posts = channel.posts.filter((post) => (since > 0 ? post.update_at > since : post.delete_at === 0));
      const newest = [...posts].sort((a, b) => b.create_at - a.create_at);
      return {
        status: 200,
        body: {
          order: newest.map((post) => post.id),
          posts: Object.fromEntries(newest.map((post) => [post.id, post])),
          next_post_id: "",
          prev_post_id: "",
        },
      };
    }),
    route("POST", "/files", (request, _params, me) => {
      const channelId = text(request.body.channel_id) || (request.query.get("channel_id") ?? "");
      if (!world.channels.has(channelId)) return notFound("channel.get");
      if (!canSee(channelId, me)) return forbidden();
      const parts = Object.values(request.body).filter(isUploadedFile);
      if (parts.length === 0) {
        return apiError(400, "api.file.upload_file.incorrect_number_of_files.app_error", "Unable to upload files.");
      }
      if (parts.some((part) => part.data.length > limits.maxFileBytes)) {
        return apiError(
          413,
          "api.file.upload_file.too_large_detailed.app_error",
          "Unable to upload file. File is too large.",
        );
      }
      const infos = parts.map((part) =>
        world.files.add(world.newId(), { name: part.name, data: part.data, userId: me, channelId, at: world.now() }),
      );
      return { status: 201, body: { file_infos: infos, client_ids: [] } };
    }),
    route("GET", "/files/:id", (_request, [id], me) => {
      const file = world.files.get(id!);
      if (!file) return notFound("file_info.get");
      if (!canSee(file.info.channel_id, me)) return forbidden();
      return { status: 200, body: file.data, headers: { "Content-Type": file.info.mime_type } };
    }),
    route("GET", "/system/ping", () => ({ status: 200, body: { status: "OK" } }), false),
  ];
}
