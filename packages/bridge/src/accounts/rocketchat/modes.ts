// How a rocketchat account sends and receives, from its keys, as Matterbridge chooses: WebhookBindAddress receives
// through Rocket.Chat's outgoing webhook (and then Login only sends, or WebhookURL does); WebhookURL sends through
// an incoming webhook (and then Login only receives); Login alone does both over the APIs.
import { isHostPort } from "../../config/host-port.ts";

export interface RocketChatModes {
  send: "api" | "webhook" | "none";
  receive: "realtime" | "webhook" | "none";
  /** Whether the account logs in (REST session): for sending over the API or receiving over the realtime API. */
  login: boolean;
}

interface ModeSettings {
  Server: string;
  Login: string;
  Password: string;
  WebhookURL: string;
  WebhookBindAddress: string;
}

export function modesOf(settings: ModeSettings): RocketChatModes {
  const hasLogin = settings.Login.trim() !== "";
  const hook = settings.WebhookURL.trim() !== "";
  const bind = settings.WebhookBindAddress.trim() !== "";
  // Matterbridge: with both webhooks the login is not used at all.
  const send = hook ? "webhook" : hasLogin ? "api" : "none";
  const receive = bind ? "webhook" : hasLogin ? "realtime" : "none";
  return { send, receive, login: send === "api" || receive === "realtime" };
}

/** What is missing or wrong for the modes the keys ask for; the server URL itself is checked by the descriptor. */
export function modeProblems(settings: ModeSettings): string[] {
  const modes = modesOf(settings);
  if (modes.send === "none" && modes.receive === "none") {
    return [
      'has no way to reach Rocket.Chat: add Login and Password (a bot user), or WebhookURL and WebhookBindAddress (webhooks), e.g. Login = "bridgebot"',
    ];
  }
  const problems: string[] = [];
  if (modes.login) {
    if (settings.Server.trim() === "")
      problems.push('has Login but no Server; add e.g. Server = "https://chat.example.org"');
    if (settings.Password === "") {
      problems.push(
        "has Login but no Password; add the bot user's password (Matterbridge's personal access token in Token is not supported)",
      );
    }
  }
  const hook = settings.WebhookURL.trim();
  if (hook !== "" && !/^https?:\/\/[^/\s]+\/\S*$/i.test(hook)) {
    problems.push('WebhookURL must be the incoming webhook\'s URL, e.g. "https://chat.example.org/hooks/<id>/<token>"');
  }
  const bind = settings.WebhookBindAddress.trim();
  if (bind !== "" && !isHostPort(bind)) {
    problems.push(`WebhookBindAddress must be <host>:<port>, e.g. "0.0.0.0:9999" (got ${JSON.stringify(bind)})`);
  }
  return problems;
}
