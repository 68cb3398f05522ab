import type { z } from "zod";
import type { BackendKind, BackendSettings } from "../config/types.ts";
import type { ClientTimeouts } from "./http-client.ts";
import type { Backend } from "./types.ts";
import type { UsageReport } from "./usage.ts";

/** What every backend receives from the gateway when it is created. */
export interface BackendContext {
  timeouts: ClientTimeouts;
  /**
   * Called once per chat or embeddings call a cloud backend completed (streams included, also when cut short), with
   * the tokens the provider reported, or estimated when it reported none. Spend and budgets are built on it.
   */
  onUsage(report: UsageReport): void;
}

/**
 * A backend type: its `[[backends]]` keys beyond the common ones, whether it needs a key, whether it is local or cloud,
 * and its factory. Registering a type is adding its module to `registry.ts`; nothing else in the gateway names types.
 */
export interface BackendModule {
  readonly type: string;
  readonly kind: BackendKind;
  /** Keys only this type accepts (validated by config; handed over in `settings.options`). */
  readonly options: z.ZodRawShape;
  /** `api_key_env` must be given (cloud providers). */
  readonly requiresKey: boolean;
  create(settings: BackendSettings, context: BackendContext): Backend;
}

/** The options a module declared, as its factory reads them (config has validated them against `options`). */
export function optionsOf<S extends z.ZodRawShape>(
  settings: BackendSettings,
  _shape: S,
): Partial<z.output<z.ZodObject<S>>> {
  return settings.options as Partial<z.output<z.ZodObject<S>>>;
}
