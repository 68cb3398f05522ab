// Per-account settings compiled once at start-up: regexes, nick format and the event switches.
import type { CoreSettings } from "../config/core-keys.ts";
import { compileGoRegex, goReplacement, splitPatterns } from "../regex.ts";
import { compileNickFormat, type NickFormat } from "./nick-format.ts";

interface Replacement {
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

function replacements(pairs: readonly [string, string][]): Replacement[] {
  return pairs.map(([pattern, replacement]) => ({
    pattern: compileGoRegex(pattern, true),
    replacement: goReplacement(replacement),
  }));
}

export function compileRules(settings: CoreSettings): AccountRules {
  return {
    source: {
      label: settings.Label,
      ignoreNicks: splitPatterns(settings.IgnoreNicks).map((p) => compileGoRegex(p)),
      ignoreMessages: splitPatterns(settings.IgnoreMessages).map((p) => compileGoRegex(p)),
      replaceMessages: replacements(settings.ReplaceMessages),
      replaceNicks: replacements(settings.ReplaceNicks),
      extractNicks: settings.ExtractNicks.map(([nick, extract]) => ({
        nick: compileGoRegex(nick),
        extract: compileGoRegex(extract),
      })),
    },
    destination: {
      // Matterbridge defaults the api account to {NICK}; Switchboard does so for every account (core-keys.ts).
      nickFormat: compileNickFormat(settings.RemoteNickFormat),
      stripNick: settings.StripNick,
      showJoinPart: settings.ShowJoinPart,
      showTopicChange: settings.ShowTopicChange || settings.SyncTopic,
      preserveThreading: settings.PreserveThreading,
    },
  };
}
