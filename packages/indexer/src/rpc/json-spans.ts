/**
 * Spans of JSON text: where a value, an array's elements or an object member's value start and end
 * in the text a node sent, so the index can store the node's own bytes (a transaction, a receipt,
 * a log) instead of parsing them and serialising them again. The text must be valid JSON (it is
 * parsed beside the scan); these functions only find boundaries.
 */

/** A value's text is `text.slice(start, end)`. */
export interface Span {
  start: number;
  end: number;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index of the first non-whitespace character at or after `i`. */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Index just after the string literal whose opening quote is at `i`. The closing quote is found by
 * the engine's own search (a node's JSON is mostly long hex strings): a quote counts when an even
 * number of backslashes precedes it.
 */
function stringEnd(text: string, i: number): number {
  for (let from = i + 1; ; ) {
    const q = text.indexOf('"', from);
    if (q < 0) throw new SyntaxError('JSON span: unterminated string');
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 0x5c) slashes++;
    if ((slashes & 1) === 0) return q + 1;
    from = q + 1;
  }
}

/**
 * Index just after the JSON value that starts at `i` (no leading whitespace).
 * @throws SyntaxError when the text ends inside the value.
 */
export function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === 0x22) return stringEnd(text, i);
  if (first !== 0x7b && first !== 0x5b) {
    // A number, true, false or null: up to the next delimiter.
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i) - 1;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  throw new SyntaxError('JSON span: unterminated object or array');
}

/**
 * Spans of the elements of the array whose `[` is at `i` (whitespace before it is skipped).
 * @throws SyntaxError when no array starts there.
 */
export function elementSpans(text: string, i: number): Span[] {
  i = skipSpace(text, i);
  if (text.charCodeAt(i) !== 0x5b) throw new SyntaxError('JSON span: not an array');
  const out: Span[] = [];
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x5d) return out;
  for (;;) {
    const end = valueEnd(text, i);
    out.push({ start: i, end });
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 0x5d) return out;
    if (c !== 0x2c) throw new SyntaxError('JSON span: expected , or ] in an array');
    i = skipSpace(text, i + 1);
  }
}

/**
 * Span of the value of member `key` of the object whose `{` is at `i` (whitespace before it is
 * skipped); null when the object has no such member. Keys are compared as they are written (no
 * escapes in the keys looked up).
 * @throws SyntaxError when no object starts there.
 */
export function memberSpan(text: string, i: number, key: string): Span | null {
  i = skipSpace(text, i);
  if (text.charCodeAt(i) !== 0x7b) throw new SyntaxError('JSON span: not an object');
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return null;
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const matches = keyEnd - i - 2 === key.length && text.startsWith(key, i + 1);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a) throw new SyntaxError('JSON span: expected : in an object');
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (matches) return { start, end };
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 0x7d) return null;
    if (c !== 0x2c) throw new SyntaxError('JSON span: expected , or } in an object');
    i = skipSpace(text, i + 1);
  }
}
