import { envelopeError } from './http.js';
import type { HttpError } from './http.js';
import { parseIso } from './time.js';

/**
 * Reads query parameters with the spec's rules. Every failure is a 400 naming the parameter;
 * `withCode` is off for the activities list, whose error bodies the spec defines without a code.
 */
export class QueryReader {
  constructor(
    private readonly params: URLSearchParams,
    private readonly withCode: boolean,
  ) {}

  invalid(name: string, message: string): HttpError {
    return envelopeError(400, message, this.withCode ? 'invalid_parameter' : undefined, { [name]: message });
  }

  has(name: string): boolean {
    return this.params.has(name);
  }

  string(name: string): string | undefined {
    const value = this.params.get(name);
    if (value === null) return undefined;
    if (value.length === 0) throw this.invalid(name, `${name} must not be empty.`);
    return value;
  }

  integer(name: string, min: number, max: number): number | undefined {
    const text = this.params.get(name);
    if (text === null) return undefined;
    const value = /^-?\d{1,15}$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
      throw this.invalid(name, `${name} must be ${range}, got "${text}".`);
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const text = this.params.get(name);
    if (text === null) return undefined;
    if (!(allowed as readonly string[]).includes(text)) {
      throw this.invalid(name, `${name} must be one of ${allowed.join(', ')}, got "${text}".`);
    }
    return text as T;
  }

  timestamp(name: string): number | undefined {
    const text = this.params.get(name);
    if (text === null) return undefined;
    const ms = parseIso(text);
    if (ms === null) throw this.invalid(name, `${name} must be an ISO 8601 timestamp, got "${text}".`);
    return ms;
  }
}
