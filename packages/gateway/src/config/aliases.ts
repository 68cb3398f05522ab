/** Alias chains are followed for at most this many hops. */
export const MAX_ALIAS_HOPS = 3;

/**
 * Checks every alias chain: a cycle or a chain longer than MAX_ALIAS_HOPS is a configuration error.
 * Returns the problem as a sentence, or undefined when the aliases are fine.
 */
export function checkAliases(aliases: ReadonlyMap<string, string>): string | undefined {
  for (const start of aliases.keys()) {
    const seen = [start];
    let current = start;
    for (let next = aliases.get(current); next !== undefined; next = aliases.get(current)) {
      current = next;
      if (seen.includes(current)) return `alias cycle ${[...seen, current].join(" -> ")}`;
      seen.push(current);
      if (seen.length - 1 > MAX_ALIAS_HOPS) {
        return `alias chain ${seen.join(" -> ")} is longer than ${MAX_ALIAS_HOPS} hops`;
      }
    }
  }
  return undefined;
}
