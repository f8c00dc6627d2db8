/**
 * The text of one member of a JSON object document, as the client wrote it
 * but compact (whitespace outside strings removed): key order, number
 * spelling and string escapes stay exactly as sent. JSON.parse cannot give
 * that back (a JavaScript object moves integer-like keys to the front).
 * Only called on text JSON.parse has already accepted; with duplicate keys
 * the last one counts, as in JSON.parse. Undefined when the member is absent.
 */
export function compactMember(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  i = skipSpace(text, i + 1);
  let found: string | undefined;
  while (i < text.length && text[i] !== '}') {
    const keyEnd = endOfString(text, i);
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    i = skipSpace(text, i + 1); // the colon
    const valueEnd = endOfValue(text, i);
    if (name === key) found = compact(text.slice(i, valueEnd));
    i = skipSpace(text, valueEnd);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return found;
}

const SPACE = new Set([' ', '\t', '\n', '\r']);

function skipSpace(text: string, i: number): number {
  while (i < text.length && SPACE.has(text[i]!)) i++;
  return i;
}

/** `i` is at the opening quote; returns the index after the closing one. */
function endOfString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  return text.length;
}

function endOfValue(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return endOfString(text, i);
  if (first !== '{' && first !== '[') {
    let j = i;
    while (j < text.length && !SPACE.has(text[j]!) && text[j] !== ',' && text[j] !== '}' && text[j] !== ']') j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') j = endOfString(text, j) - 1;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return text.length;
}

function compact(value: string): string {
  let out = '';
  for (let j = 0; j < value.length; j++) {
    const c = value[j]!;
    if (c === '"') {
      const end = endOfString(value, j);
      out += value.slice(j, end);
      j = end - 1;
    } else if (!SPACE.has(c)) {
      out += c;
    }
  }
  return out;
}
