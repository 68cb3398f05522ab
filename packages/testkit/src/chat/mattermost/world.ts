// The state of one simulated Mattermost server: users with passwords and sessions, a team, channels with members and
// posts, in the object shapes API v4 returns (api.mattermost.com: User, Team, Channel, Post). Ids are 26 lowercase
// letters and digits, as Mattermost's are; times are milliseconds.
import { MattermostFiles } from "./files.ts";

export interface UserObject {
  id: string;
  username: string;
  first_name: string;
  last_name: string;
  nickname: string;
  email: string;
  is_bot: boolean;
  roles: string;
  create_at: number;
  update_at: number;
  delete_at: number;
}

export interface PostObject {
  id: string;
  create_at: number;
  update_at: number;
  edit_at: number;
  delete_at: number;
  user_id: string;
  channel_id: string;
  root_id: string;
  original_id: string;
  message: string;
  type: string;
  props: Record<string, unknown>;
  hashtags: string;
  file_ids: string[];
  pending_post_id: string;
  metadata: Record<string, unknown>;
}

export interface ChannelState {
  id: string;
  team_id: string;
  name: string;
  display_name: string;
  type: "O" | "P";
  members: Set<string>;
  posts: PostObject[];
  create_at: number;
}

const ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789";

export class MattermostWorld {
  readonly files = new MattermostFiles();
  readonly users = new Map<string, UserObject>();
  readonly passwords = new Map<string, string>();
  /** Session or personal access token -> user id. */
  readonly sessions = new Map<string, string>();
  readonly channels = new Map<string, ChannelState>();
  readonly team: { id: string; name: string; display_name: string; type: "O"; create_at: number };
  #lastTime = 0;
  #counter = 0;

  constructor(teamName: string) {
    this.team = { id: this.newId(), name: teamName, display_name: teamName, type: "O", create_at: this.now() };
  }

  newId(): string {
    let n = ++this.#counter;
    let id = "";
    for (let i = 0; i < 26; i++) {
      n = (n * 1_103_515_245 + 12_345 + i) % 2_147_483_648;
      id += ID_CHARS[n % ID_CHARS.length];
    }
    return id;
  }

  /** Milliseconds, strictly increasing (so "since" queries see every change). */
  now(): number {
    this.#lastTime = Math.max(Date.now(), this.#lastTime + 1);
    return this.#lastTime;
  }

  addUser(username: string, password: string, fields: Partial<UserObject> = {}): UserObject {
    const at = this.now();
    const user: UserObject = {
      id: this.newId(),
      username,
      first_name: "",
      last_name: "",
      nickname: "",
      email: `${username}@example.com`,
      is_bot: false,
      roles: "system_user",
      create_at: at,
      update_at: at,
      delete_at: 0,
      ...fields,
    };
    this.users.set(user.id, user);
    this.passwords.set(user.id, password);
    return user;
  }

  newSession(userId: string): string {
    const token = this.newId();
    this.sessions.set(token, userId);
    return token;
  }

  addChannel(name: string, members: string[], type: "O" | "P" = "O"): ChannelState {
    const channel: ChannelState = {
      id: this.newId(),
      team_id: this.team.id,
      name,
      display_name: name,
      type,
      members: new Set(members),
      posts: [],
      create_at: this.now(),
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  channelByName(name: string): ChannelState | undefined {
    return [...this.channels.values()].find((channel) => channel.name === name);
  }

  post(id: string): { post: PostObject; channel: ChannelState } | undefined {
    for (const channel of this.channels.values()) {
      const post = channel.posts.find((candidate) => candidate.id === id);
      if (post) return { post, channel };
    }
    return undefined;
  }

  newPost(channel: ChannelState, userId: string, fields: Partial<PostObject>): PostObject {
    const at = this.now();
    const post: PostObject = {
      id: this.newId(),
      create_at: at,
      update_at: at,
      edit_at: 0,
      delete_at: 0,
      user_id: userId,
      channel_id: channel.id,
      root_id: "",
      original_id: "",
      message: "",
      type: "",
      props: {},
      hashtags: "",
      file_ids: [],
      pending_post_id: "",
      metadata: {},
      ...fields,
    };
    channel.posts.push(post);
    return post;
  }

  /** Files uploaded for a post become part of it (metadata.files), and can be attached to no other. */
  attachFiles(post: PostObject, fileIds: readonly string[]): void {
    const infos = fileIds.flatMap((id) => {
      const file = this.files.get(id);
      if (file === undefined) return [];
      file.info.post_id = post.id;
      return [file.info];
    });
    if (infos.length === 0) return;
    post.file_ids = [...fileIds];
    post.metadata = { ...post.metadata, files: structuredClone(infos) };
  }

  channelObject(channel: ChannelState): Record<string, unknown> {
    const { members: _members, posts: _posts, ...shown } = channel;
    return {
      ...shown,
      update_at: channel.create_at,
      delete_at: 0,
      header: "",
      purpose: "",
      last_post_at: channel.posts.at(-1)?.create_at ?? 0,
      total_msg_count: channel.posts.length,
      creator_id: "",
    };
  }
}

/** A user as the API shows them (no password, no auth data). */
export function publicUser(user: UserObject): UserObject {
  return structuredClone(user);
}
