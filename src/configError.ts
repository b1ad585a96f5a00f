/** A config problem the user can fix; the CLI prints its message and exits 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
