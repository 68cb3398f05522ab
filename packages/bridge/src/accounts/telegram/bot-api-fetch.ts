// grammy reads every Bot API answer as JSON. A proxy in front of the Bot API (nginx, whose client_max_body_size is 1 MB
// by default, before a self-hosted telegram-bot-api server that takes files up to 2 GB) refuses a large upload with an
// HTML 413 page: grammy made that a network error, and the account reconnected instead of sending the file as its
// link. This fetch is grammy's own (node-fetch); a 4xx answer that is not JSON reaches grammy in the Bot API's error
// form, with its status and reason phrase, so it is a refusal like the Bot API's own. A 5xx page (the proxy cannot
// reach the API) stays a network error: the account reconnects, as it should.
import nodeFetch, { type NodeFetchResponse } from "node-fetch";

const JSON_TYPE = /^application\/json\b/i;
const REASON_CHARS = 100;

/** The Bot API's error form for a client error answered by something else than the Bot API. */
function asBotApiError(response: NodeFetchResponse): NodeFetchResponse {
  // The page itself is not needed: it is dropped without being read.
  response.body.destroy();
  const reason = response.statusText.replace(/[^\x20-\x7e]/g, "").slice(0, REASON_CHARS);
  const description = `${reason || "Client Error"} (not a Bot API answer)`;
  const answer = { ok: false, error_code: response.status, description };
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    body: response.body,
    json: () => Promise.resolve(answer),
  };
}

/** grammy's `fetch` option. */
export const botApiFetch: typeof nodeFetch = async (url, init) => {
  const response = await nodeFetch(url, init);
  const clientError = response.status >= 400 && response.status < 500;
  if (!clientError || JSON_TYPE.test(response.headers.get("content-type") ?? "")) return response;
  return asBotApiError(response);
};
