import type { z } from "zod";

/** Where a backend runs: on the operator's machines, or a paid provider. */
export type BackendKind = "local" | "cloud";

/**
 * What configuration needs to know of a backend type: its name, whether it is local or cloud, the keys it adds to a
 * `[[backends]]` entry and whether it needs a key. The backends' registry hands these in (config never imports
 * backends/); each backend module is one.
 */
export interface BackendTypeSpec {
  readonly type: string;
  readonly kind: BackendKind;
  /** Keys only this type accepts (validated by config; handed over in `settings.options`). */
  readonly options: z.ZodRawShape;
  /** `api_key_env` must be given (cloud providers). */
  readonly requiresKey: boolean;
}
