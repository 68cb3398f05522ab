import type { z } from "zod";
import type { BackendTypeSpec } from "../config/backend-type.ts";
import type { BackendSettings } from "../config/types.ts";
import type { ChatBody } from "../request/chat.ts";
import type { ClientLimits } from "./http-client.ts";
import type { Backend } from "./types.ts";
import type { UsageReport } from "./usage.ts";

/** What every backend receives from the gateway when it is created. */
export interface BackendContext {
  limits: ClientLimits;
  /**
   * Called once per chat or embeddings call a cloud backend completed (streams included, also when cut short), with
   * the tokens the provider reported, or estimated when it reported none. Spend and budgets are built on it.
   */
  onUsage(report: UsageReport): void;
  /** Token counts for usage a provider did not report (policy/tokens.ts; handed in, as backends sit below policy). */
  tokens: TokenCounter;
}

interface TokenCounter {
  /** The prompt tokens of a chat body. */
  prompt(body: ChatBody): Promise<number>;
  text(text: string): Promise<number>;
}

/**
 * A backend type: its `[[backends]]` keys beyond the common ones, whether it needs a key, whether it is local or cloud,
 * and its factory. Registering a type is adding its module to `registry.ts`; nothing else in the gateway names types.
 */
export interface BackendModule extends BackendTypeSpec {
  create(settings: BackendSettings, context: BackendContext): Backend;
}

/** The options a module declared, as its factory reads them (config has validated them against `options`). */
export function optionsOf<S extends z.ZodRawShape>(
  settings: BackendSettings,
  _shape: S,
): Partial<z.output<z.ZodObject<S>>> {
  return settings.options as Partial<z.output<z.ZodObject<S>>>;
}
