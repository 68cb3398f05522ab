// The REST routes of Rocket.Chat's API that the bridge uses (developer.rocket.chat "REST API"), answering as
// Rocket.Chat does: `{success: true, ...}`, errors as `{success: false, error, errorType}` (400) and
// `{status: "error", message}` (401), `X-Auth-Token` and `X-User-Id` headers after `POST /api/v1/login`. Messages
// over Message_MaxAllowedSize (5,000 characters by default) are refused; `alias` and `avatar` need the bot role
// (the message-impersonate permission).
import { messageJson, type RcMessage, type RcRoom, type RcUser, type RocketChatWorld } from "./world.ts";

export const MAX_MESSAGE_SIZE = 5000;

export interface RestAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface RestEffects {
  posted(message: RcMessage): void;
  edited(message: RcMessage): void;
  deleted(room: RcRoom, message: RcMessage): void;
  joined(room: RcRoom, user: RcUser): void;
}

export type Handler = (input: Record<string, unknown>, me: RcUser) => RestAnswer;

export interface Route {
  method: string;
  path: string;
  auth: boolean;
  handler: Handler;
}

export const ok = (fields: Record<string, unknown> = {}): RestAnswer => ({
  status: 200,
  body: { ...fields, success: true },
});
export const failure = (error: string, errorType: string, status = 400): RestAnswer => ({
  status,
  body: { success: false, error: errorType === "" ? error : `${error} [${errorType}]`, errorType },
});
export const unauthorized = (): RestAnswer => ({
  status: 401,
  body: { status: "error", message: "You must be logged in to do this." },
});

const text = (value: unknown) => (typeof value === "string" ? value : "");

export function restRoutes(world: RocketChatWorld, effects: RestEffects): Route[] {
  const route = (method: string, path: string, handler: Handler, auth = true): Route => ({
    method,
    path,
    auth,
    handler,
  });
  const roomOf = (input: Record<string, unknown>): RcRoom | undefined => {
    const id = text(input.roomId);
    if (id !== "") return world.rooms.get(id);
    const name = text(input.roomName) || text(input.channel);
    return name === "" ? undefined : world.roomByName(name.replace(/^#/, ""));
  };
  const notFound = () =>
    failure('The required "roomId" or "roomName" param provided does not match any channel', "error-room-not-found");
  const ownMessage = (
    input: Record<string, unknown>,
    me: RcUser,
  ): { message: RcMessage; room: RcRoom } | RestAnswer => {
    const found = world.message(text(input.msgId));
    if (found === undefined || found.room._id !== text(input.roomId))
      return failure(`No message found with the id of "${text(input.msgId)}".`, "");
    if (found.message.u._id !== me._id) return failure("Not allowed", "error-action-not-allowed");
    return found;
  };

  return [
    route(
      "POST",
      "/login",
      (input) => {
        const login = text(input.user) || text(input.username);
        const user = [...world.users.values()].find((u) => u.username === login);
        if (user === undefined || world.passwords.get(user._id) !== text(input.password)) {
          return { status: 401, body: { status: "error", error: "Unauthorized", message: "Unauthorized" } };
        }
        const authToken = world.newToken(user._id);
        return {
          status: 200,
          body: { status: "success", data: { userId: user._id, authToken, me: { ...user, active: true } } },
        };
      },
      false,
    ),
    route("GET", "/me", (_input, me) => ok({ ...me, active: true })),
    route("GET", "/rooms.info", (input, me) => {
      const room = roomOf(input);
      if (room === undefined || (room.t === "p" && !room.members.has(me._id))) return notFound();
      return ok({ room: world.roomObject(room) });
    }),
    route("POST", "/channels.join", (input, me) => {
      const room = roomOf(input);
      if (room === undefined || room.t !== "c") return notFound();
      if (!room.members.has(me._id)) {
        room.members.add(me._id);
        effects.joined(room, me);
      }
      return ok({ channel: world.roomObject(room) });
    }),
    route("POST", "/chat.postMessage", (input, me) => {
      const room = roomOf(input);
      if (room === undefined) return notFound();
      if (!room.members.has(me._id)) return failure("error-not-allowed", "error-not-allowed");
      const msg = text(input.text);
      if (msg.length > MAX_MESSAGE_SIZE)
        return failure("Message size exceeds the allowed limit", "error-message-size-exceeded");
      const alias = text(input.alias);
      const avatar = text(input.avatar);
      if ((alias !== "" || avatar !== "") && !me.roles.includes("bot")) {
        return failure("Not enough permission", "error-not-allowed");
      }
      const tmid = text(input.tmid);
      if (tmid !== "" && world.message(tmid)?.room !== room) return failure("Invalid thread", "error-invalid-message");
      const message = world.newMessage(room, me, {
        msg,
        ...(alias ? { alias } : {}),
        ...(avatar ? { avatar } : {}),
        ...(tmid ? { tmid } : {}),
      });
      effects.posted(message);
      return ok({ ts: message.ts.getTime(), channel: room.name, message: messageJson(message, "iso") });
    }),
    route("POST", "/chat.update", (input, me) => {
      const found = ownMessage(input, me);
      if ("status" in found) return found;
      const msg = text(input.text);
      if (msg.length > MAX_MESSAGE_SIZE)
        return failure("Message size exceeds the allowed limit", "error-message-size-exceeded");
      const at = world.now();
      Object.assign(found.message, {
        msg,
        editedAt: at,
        _updatedAt: at,
        editedBy: { _id: me._id, username: me.username },
      });
      effects.edited(found.message);
      return ok({ message: messageJson(found.message, "iso") });
    }),
    route("POST", "/chat.delete", (input, me) => {
      const found = ownMessage(input, me);
      if ("status" in found) return found;
      found.room.messages = found.room.messages.filter((m) => m !== found.message);
      const at = world.now();
      found.room.deleted.push({ _id: found.message._id, _deletedAt: at });
      effects.deleted(found.room, found.message);
      return ok({
        _id: found.message._id,
        ts: at.getTime(),
        message: { _id: found.message._id, rid: found.room._id, u: found.message.u },
      });
    }),
    route("GET", "/chat.getMessage", (input, me) => {
      const found = world.message(text(input.msgId));
      if (found === undefined || !found.room.members.has(me._id)) return failure("Not allowed", "error-not-allowed");
      return ok({ message: messageJson(found.message, "iso") });
    }),
    route("GET", "/chat.syncMessages", (input, me) => {
      const room = roomOf(input);
      if (room === undefined || !room.members.has(me._id)) return failure("error-not-allowed", "error-not-allowed");
      const since = Date.parse(text(input.lastUpdate));
      if (Number.isNaN(since))
        return failure('The "lastUpdate" query parameter must be a valid date.', "error-lastUpdate-param-invalid");
      const updated = room.messages.filter((m) => m._updatedAt.getTime() > since).map((m) => messageJson(m, "iso"));
      const deleted = room.deleted
        .filter((d) => d._deletedAt.getTime() > since)
        .map((d) => ({ _id: d._id, _deletedAt: d._deletedAt.toISOString() }));
      return ok({ result: { updated, deleted } });
    }),
  ];
}
