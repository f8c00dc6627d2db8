/**
 * Where things are in a JSON text, for error messages people can act on:
 * the line of each value by its dotted path (`questions.2.correctOptionId`),
 * or the line and column of a syntax error. A small recursive-descent
 * scanner that follows RFC 8259; it only locates, the value itself comes
 * from JSON.parse once the scan found no error.
 */
export type JsonScan = { ok: true; lines: Map<string, number> } | { ok: false; line: number; column: number; message: string };

class ScanError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

export function scanJson(text: string): JsonScan {
  const lines = new Map<string, number>();
  let i = 0;
  // Positions are asked for in increasing order, so lines are counted once, incrementally.
  let countedTo = 0;
  let line = 1;
  const lineAt = (pos: number) => {
    if (pos < countedTo) {
      countedTo = 0;
      line = 1;
    }
    for (; countedTo < pos && countedTo < text.length; countedTo++) if (text.charCodeAt(countedTo) === 10) line++;
    return line;
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (message: string): never => {
    throw new ScanError(message, i);
  };
  const expect = (c: string, what: string) => {
    if (text[i] !== c) fail(i >= text.length ? `The text ends where ${what} was expected.` : `Expected ${what} but found “${text[i]}”.`);
    i++;
  };
  const string = (): string => {
    const start = i;
    expect('"', 'a string');
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail('A string cannot contain a line break or control character; write \\n instead.');
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('A \\u escape needs four hexadecimal digits.');
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[i] ?? '')) fail('Unknown escape in a string.');
      }
      i++;
    }
    if (i >= text.length) {
      i = start;
      fail('This string is never closed with a double quote.');
    }
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string) => {
    ws();
    if (path) lines.set(path, lineAt(i));
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(text[i] === '}' ? 'A comma cannot come before “}”.' : 'Expected a property name in double quotes.');
        const keyLine = lineAt(i);
        const key = string();
        ws();
        expect(':', '“:” after the property name');
        const child = path ? `${path}.${key}` : key;
        value(child);
        lines.set(child, keyLine);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expect('}', '“,” or “}”');
        return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (let n = 0; ; n++) {
        value(path ? `${path}.${n}` : String(n));
        ws();
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === ']') fail('A comma cannot come before “]”.');
          continue;
        }
        expect(']', '“,” or “]”');
        return;
      }
    }
    if (c === '"') return void string();
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!literal) fail(i >= text.length ? 'The text ends where a value was expected.' : `Expected a value but found “${c}”.`);
    i += literal![0].length;
  };
  try {
    value('');
    ws();
    if (i < text.length) fail('Unexpected text after the end of the JSON value.');
    return { ok: true, lines };
  } catch (err) {
    if (!(err instanceof ScanError)) throw err;
    const line = lineAt(err.at);
    const column = err.at - text.lastIndexOf('\n', err.at - 1);
    return { ok: false, line, column, message: err.message };
  }
}

/** The line of a dotted path, or of its nearest ancestor (a missing property is reported at its object). */
export function lineOf(lines: Map<string, number>, field: string): number | null {
  const parts = field.split('.');
  while (parts.length > 0) {
    const found = lines.get(parts.join('.'));
    if (found !== undefined) return found;
    parts.pop();
  }
  return null;
}
