// The msteams account's own keys, by their Matterbridge spelling, plus where the session is kept and (for tests and
// national clouds) where Microsoft's sign-in and Graph live.
import { key } from "../../config/key-spec.ts";

export const MSTEAMS_KEYS = {
  TenantID: key.string({
    required: true,
    example: '"72f988bf-86f1-41af-91ab-2d7cd011db47"',
    description: "the Directory (tenant) ID of the app registration",
  }),
  ClientID: key.string({
    required: true,
    example: '"0e5f6d2a-1b3c-4d5e-8f90-a1b2c3d4e5f6"',
    description: "the Application (client) ID of the app registration (a public client: device code flow allowed)",
  }),
  TeamID: key.string({
    required: true,
    example: '"5e5b5b5b-...-team-group-id"',
    description: "the team's id (groupId in a link to the team)",
  }),
  SessionFile: key.string({
    default: "",
    description:
      'where the signed-in session (refresh token, last seen times) is kept; default "<config name>.msteams-<account>.json" beside the config',
  }),
  PollInterval: key.integer({
    default: 5000,
    min: 100,
    description: "milliseconds between two reads of each channel's messages (Matterbridge: 5 s)",
  }),
  LoginURL: key.string({
    default: "https://login.microsoftonline.com",
    description: "the Microsoft identity platform's address (a national cloud's, or a simulator in tests)",
  }),
  GraphURL: key.string({
    default: "https://graph.microsoft.com",
    description: "Microsoft Graph's address (a national cloud's, or a simulator in tests)",
  }),
  EditDisable: key.boolean({ default: false, description: "do not relay edits made on Teams" }),
  EditSuffix: key.string({ default: "", description: 'appended to edits relayed from Teams, e.g. " (edited)"' }),
  MessageClipped: key.string({
    default: "<clipped message>",
    description: "appended to a message cut at Teams' limit (about 28 KB of HTML)",
  }),
} as const;
