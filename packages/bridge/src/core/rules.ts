// Per-account settings compiled once at start-up: regexes, nick format and the event switches.
import type { Settings } from "../config/keys.ts";
import { compileGoRegex, goReplacement, splitPatterns } from "../regex.ts";
import { compileNickFormat, type NickFormat } from "./nick-format.ts";

export interface Replacement {
  pattern: RegExp;
  replacement: string;
}

/** Options read from the account a message comes from. */
export interface SourceRules {
  label: string;
  ignoreNicks: RegExp[];
  ignoreMessages: RegExp[];
  replaceMessages: Replacement[];
  replaceNicks: Replacement[];
  extractNicks: { nick: RegExp; extract: RegExp }[];
}

/** Options read from the account a message goes to. */
export interface DestinationRules {
  nickFormat: NickFormat;
  stripNick: boolean;
  showJoinPart: boolean;
  showTopicChange: boolean;
  preserveThreading: boolean;
}

export interface AccountRules {
  source: SourceRules;
  destination: DestinationRules;
}

function replacements(pairs: [string, string][] | undefined): Replacement[] {
  return (pairs ?? []).map(([pattern, replacement]) => ({
    pattern: compileGoRegex(pattern, true),
    replacement: goReplacement(replacement),
  }));
}

export function compileRules(settings: Settings): AccountRules {
  return {
    source: {
      label: settings.label ?? "",
      ignoreNicks: splitPatterns(settings.ignorenicks).map((p) => compileGoRegex(p)),
      ignoreMessages: splitPatterns(settings.ignoremessages).map((p) => compileGoRegex(p)),
      replaceMessages: replacements(settings.replacemessages),
      replaceNicks: replacements(settings.replacenicks),
      extractNicks: (settings.extractnicks ?? []).map(([nick, extract]) => ({
        nick: compileGoRegex(nick),
        extract: compileGoRegex(extract),
      })),
    },
    destination: {
      // Matterbridge defaults the api account to {NICK}; Switchboard does so for every account (docs/bridge.md).
      nickFormat: compileNickFormat(settings.remotenickformat ?? "{NICK}"),
      stripNick: settings.stripnick ?? false,
      showJoinPart: settings.showjoinpart ?? false,
      showTopicChange: (settings.showtopicchange ?? false) || (settings.synctopic ?? false),
      preserveThreading: settings.preservethreading ?? false,
    },
  };
}
