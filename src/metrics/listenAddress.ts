/** Where the metrics server listens; `host` as node:net takes it (brackets of an IPv6 literal removed). */
export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * Parses `HOST:PORT` (`0.0.0.0:9464`, `127.0.0.1:0`, `[::]:9464`); returns one sentence naming the
 * value and what was expected when it cannot, for the caller to raise as a usage or config error.
 */
export function parseListenAddress(value: string): ListenAddress | string {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value.trim());
  const expected = 'expected HOST:PORT such as 0.0.0.0:9464 or 127.0.0.1:9464';
  if (!match) return `is "${value}"; ${expected}`;
  const port = Number(match[2]);
  if (port > 65535) return `is "${value}"; the port must be from 0 to 65535`;
  return { host: match[1].replace(/^\[(.*)\]$/, '$1'), port };
}
