// Where Talk's chat API and the current user live on a Nextcloud server, and the queries the account sends.

const CHAT = "/ocs/v2.php/apps/spreed/api/v1/chat";
export const CURRENT_USER = "/ocs/v2.php/cloud/user";
/** Seconds a long poll waits for new messages (Talk's default; 60 at most). */
export const POLL_TIMEOUT_S = 30;

export const chatPath = (token: string) => `${CHAT}/${encodeURIComponent(token)}`;
export const messagePath = (token: string, id: string) => `${chatPath(token)}/${encodeURIComponent(id)}`;

/** The newest message only, to know where reading starts (the read marker left alone). */
export const newestQuery = (token: string) =>
  `${chatPath(token)}?lookIntoFuture=0&limit=1&setReadMarker=0&markNotificationsAsRead=0`;

/** A long poll for what came after `lastKnown`: answered at once when there is some, else after the timeout. */
export const pollQuery = (token: string, lastKnown: number) =>
  `${chatPath(token)}?lookIntoFuture=1&lastKnownMessageId=${lastKnown}&timeout=${POLL_TIMEOUT_S}&limit=100&setReadMarker=0&markNotificationsAsRead=0&includeLastKnown=0`;
