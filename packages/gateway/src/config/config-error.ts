/** A configuration problem, already phrased as the one line the operator sees. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
