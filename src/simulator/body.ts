import { envelopeError } from './http.js';
import type { HttpError } from './http.js';
import { parseCents } from './money.js';
import { parseIso } from './time.js';

/** Reads fields of a JSON request body; every failure is a 400 naming the field in `details`. */
export class BodyReader {
  constructor(private readonly body: Record<string, unknown>) {}

  invalid(name: string, message: string): HttpError {
    return envelopeError(400, message, 'invalid_parameter', { [name]: message });
  }

  private present(name: string, required: boolean): unknown {
    const value = this.body[name];
    if (value === undefined || value === null) {
      if (required) throw this.invalid(name, `${name} is required.`);
      return undefined;
    }
    return value;
  }

  string(name: string, required: boolean, maxLength = 255): string | undefined {
    const value = this.present(name, required);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length < 1 || value.length > maxLength) {
      throw this.invalid(name, `${name} must be a string of 1 to ${maxLength} characters.`);
    }
    return value;
  }

  /** Fields whose JSON type the spec leaves open (customer_id, number): a string or an integer, kept as text. */
  identifier(name: string, required: boolean): string | undefined {
    const value = this.present(name, required);
    if (value === undefined) return undefined;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    if (typeof value === 'string' && value.length >= 1 && value.length <= 255) return value;
    throw this.invalid(name, `${name} must be a non-empty string or an integer.`);
  }

  integer(name: string, required: boolean, min: number, max: number): number | undefined {
    const value = this.present(name, required);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw this.invalid(name, `${name} must be an integer from ${min} to ${max}.`);
    }
    return value;
  }

  number(name: string): number | undefined {
    const value = this.present(name, false);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.invalid(name, `${name} must be a number.`);
    return value;
  }

  boolean(name: string): boolean | undefined {
    const value = this.present(name, false);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw this.invalid(name, `${name} must be true or false.`);
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], required: boolean): T | undefined {
    const value = this.present(name, required);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      throw this.invalid(name, `${name} must be one of ${allowed.join(', ')}.`);
    }
    return value as T;
  }

  timestamp(name: string): number | undefined {
    const value = this.present(name, false);
    if (value === undefined) return undefined;
    const ms = typeof value === 'string' ? parseIso(value) : null;
    if (ms === null) throw this.invalid(name, `${name} must be an ISO 8601 timestamp.`);
    return ms;
  }

  /** Money: a plain decimal string with at most two decimals, returned in cents. */
  money(name: string): number {
    const value = this.present(name, true);
    const cents = typeof value === 'string' ? parseCents(value) : null;
    if (cents === null) throw this.invalid(name, `${name} must be a decimal string such as "12.50".`);
    return cents;
  }

  array(name: string, item: (value: unknown) => boolean, what: string): unknown[] | undefined {
    const value = this.present(name, false);
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every(item)) throw this.invalid(name, `${name} must be an array of ${what}.`);
    return value;
  }

  object(name: string): Record<string, unknown> | undefined {
    const value = this.present(name, false);
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || Array.isArray(value) || value === null) throw this.invalid(name, `${name} must be an object.`);
    return value as Record<string, unknown>;
  }
}
