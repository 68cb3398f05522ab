// How discord.js's REST client makes its requests: Node's own fetch rather than @discordjs/rest's private copy of
// undici. That copy sends through the process-wide undici dispatcher, which a newer undici (loaded by the bridge
// for file downloads and other protocols) installs on import; the two disagree on multipart bodies, so file uploads
// failed ("action is not a function"). Node's fetch hands any dispatcher a body it understands.
import type { RESTOptions } from "discord.js";

export const makeRequest: RESTOptions["makeRequest"] = (url, init) => fetch(url, init);
