import type { PolicyConfig } from "../config/schema.ts";
import type { PolicyRequirement } from "./types.ts";

interface CompiledPolicy extends PolicyRequirement {
  pattern: RegExp;
}

/** `*` matches any run of characters, `?` one character; everything else is literal. */
function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const char of glob) {
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** `[[routing.policies]]`: the first policy whose model_pattern matches applies (TOML order). */
export class PolicyTable {
  readonly #policies: CompiledPolicy[];

  constructor(policies: readonly PolicyConfig[]) {
    this.#policies = policies.map((policy) => ({
      pattern: globToRegExp(policy.model_pattern),
      privacy: policy.privacy,
      minTier: policy.min_tier,
    }));
  }

  match(model: string): PolicyRequirement | undefined {
    for (const policy of this.#policies) if (policy.pattern.test(model)) return policy;
    return undefined;
  }
}
