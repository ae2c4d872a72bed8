/**
 * JSON spans against the parser: for any JSON document, however it is spaced, the spans of an
 * array's elements and of an object's members slice out texts that parse to exactly those values.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { elementSpans, memberSpan, skipSpace, valueEnd } from './json-spans.js';

/** `v` as JSON text: compact, indented, or with spaces, tabs and newlines around every token. */
function spaced(v: unknown, style: number): string {
  if (style === 0) return JSON.stringify(v);
  if (style === 1) return JSON.stringify(v, null, 2);
  // Whitespace around structural characters, outside strings (JSON.stringify escapes control chars).
  const compact = JSON.stringify(v);
  let out = '';
  let inString = false;
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i];
    if (inString) {
      out += c;
      if (c === '\\') out += compact[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    out += '[]{},:'.includes(c) ? ` \t${c}\r\n ` : c;
  }
  return ` ${out} `;
}

describe('JSON spans', () => {
  it('slice every element of an array to a text that parses to that element', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.integer({ min: 0, max: 2 }), (arr, style) => {
        const text = spaced(arr, style);
        const spans = elementSpans(text, 0);
        expect(spans.map((s) => JSON.parse(text.slice(s.start, s.end)))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('find an object member by its key, and only a member of that object (not a nested one)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.string(),
        fc.integer({ min: 0, max: 2 }),
        (obj, key, style) => {
          // A nested object carrying `key` too: must not be found through its parent.
          const doc = { outer: { [key]: 'nested' }, ...obj };
          const text = spaced(doc, style);
          const plainKey = JSON.stringify(key).slice(1, -1) === key;
          const span = memberSpan(text, 0, key);
          const parsed = JSON.parse(text);
          if (!plainKey) return; // keys with escapes are not looked up (see memberSpan)
          if (Object.hasOwn(parsed, key))
            expect(JSON.parse(text.slice(span!.start, span!.end))).toEqual(parsed[key]);
          else expect(span).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('end a scalar, a string with escapes and a nested value where the parser does', () => {
    for (const v of [0, -1.5e-7, true, null, 'a"b\\c\u2028', [1, [2, { a: ']}' }]], { '"k': '}' }]) {
      const text = `${JSON.stringify(v)} ,`;
      const end = valueEnd(text, skipSpace(text, 0));
      expect(JSON.parse(text.slice(0, end))).toEqual(v);
      expect(text.slice(end)).toBe(' ,');
    }
    expect(() => valueEnd('{"a":[1,2}', 0)).toThrow(SyntaxError);
    expect(() => elementSpans('{"a":1}', 0)).toThrow(SyntaxError);
  });
});
