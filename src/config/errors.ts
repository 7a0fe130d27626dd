/** A configuration or usage problem: the CLI prints the message and exits with code 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
  readonly exitCode = 2;
}
