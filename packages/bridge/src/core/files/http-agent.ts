// The HTTP client of file downloads and media server uploads: its own undici Agent, never the global dispatcher.
// Calling undici's request() without one installs a global Agent of this undici version, which other libraries'
// undici copies then use for their own requests (discord.js's multipart uploads broke on it).
import { Agent } from "undici";

export const filesAgent = new Agent({ connections: 8, keepAliveTimeout: 4_000 });
