import { describe, expect, it } from 'vitest';
import { sameJson } from '../../src/db/sameJson.js';
import { toJsonText } from '../../src/jsonText.js';

const nested = (depth: number, leaf: string): string => `${'{"a":['.repeat(depth)}${leaf}${']}'.repeat(depth)}`;

describe('toJsonText and sameJson at any depth', () => {
  it('write what JSON.stringify writes for ordinary values', () => {
    for (const value of [{ a: 1, b: [1, 'x\u2028"', null, { c: -0, d: 1e21, e: true }], '"k"': {} }, [], {}, 'text', 2.5, null]) {
      expect(toJsonText(value)).toBe(JSON.stringify(value));
    }
  });

  it('write a value nested 20,000 levels deep (JSON.stringify throws) back to the text it was parsed from', () => {
    const text = nested(20_000, '{"x":"é","y":[1,2,{"z":null}]}');
    expect(() => JSON.stringify(JSON.parse(text))).toThrow(RangeError);
    expect(toJsonText(JSON.parse(text))).toBe(text);
  });

  it('compare such values by value, members in any order', () => {
    const left = nested(20_000, '{"x":1,"y":2}');
    expect(sameJson(left, nested(20_000, '{"y":2,"x":1}'))).toBe(true);
    expect(sameJson(left, nested(20_000, '{"x":1,"y":3}'))).toBe(false);
    expect(sameJson(left, nested(19_999, '{"x":1,"y":2}'))).toBe(false);
  });
});
