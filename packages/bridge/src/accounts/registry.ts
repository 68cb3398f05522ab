// Protocol name -> account factory. A new protocol is a new folder under accounts/ plus one line here.
import type { AccountFactory } from "../core/account.ts";
import { ApiAccount } from "./api/index.ts";

export const ACCOUNT_FACTORIES: Readonly<Record<string, AccountFactory>> = {
  api: (config) => new ApiAccount(config),
};

export const SUPPORTED_PROTOCOLS: readonly string[] = Object.keys(ACCOUNT_FACTORIES);
