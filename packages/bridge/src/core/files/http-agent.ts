// The HTTP client of file downloads, media server uploads and XMPP uploads: its own undici Agent, never the global
// dispatcher. Calling undici's request() without one installs a global Agent of this undici version, which other
// libraries' undici copies then use for their own requests (discord.js's multipart uploads broke on it).
// undici is loaded with the first file, not at start-up: about a megabyte of code the bridge would otherwise compile
// before it listens (docs/benchmarks.md, Start-up).
import type { Dispatcher, request } from "undici";

export interface FilesHttp {
  request: typeof request;
  dispatcher: Dispatcher;
}

let files: Promise<FilesHttp> | undefined;

export function filesHttp(): Promise<FilesHttp> {
  // Its exports through `default` (module.exports): a CommonJS package imported dynamically from the bundle has no
  // named exports there.
  files ??= import("undici").then(({ default: { Agent, request } }) => ({
    request,
    dispatcher: new Agent({ connections: 8, keepAliveTimeout: 4_000 }),
  }));
  return files;
}
