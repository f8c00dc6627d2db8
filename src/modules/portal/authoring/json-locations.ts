/**
 * Where things are in a JSON text, for error messages people can act on:
 * the line of each value by its dotted path (`questions.2.correctOptionId`),
 * or the line and column of a syntax error. A small recursive-descent
 * scanner that follows RFC 8259; it only locates, the value itself comes
 * from JSON.parse once the scan found no error.
 */
import type { MessageKey, MessageValues, Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator } from '../ui/portal-text.js';

export type JsonScan = { ok: true; lines: Map<string, number> } | { ok: false; line: number; column: number; message: string };

class ScanError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly values: MessageValues,
    readonly at: number,
  ) {
    super(key);
  }
}

/** What was expected where the text went wrong, in the reader's words. */
type Expected = 'string' | 'colon' | 'commaOrBrace' | 'commaOrBracket';
const EXPECTED: Record<Expected, MessageKey> = {
  string: 'portal.authoring.json.expected.string',
  colon: 'portal.authoring.json.expected.colon',
  commaOrBrace: 'portal.authoring.json.expected.commaOrBrace',
  commaOrBracket: 'portal.authoring.json.expected.commaOrBracket',
};

export function scanJson(text: string, t: Translator = portalTranslator()): JsonScan {
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
  const fail = (key: MessageKey, values: MessageValues = {}): never => {
    throw new ScanError(key, values, i);
  };
  // The text ended, or holds something else, where `expected` should be.
  const missing = (expected: string): never =>
    i >= text.length ? fail('portal.authoring.json.endsWhere', { expected }) : fail('portal.authoring.json.expectedFound', { expected, found: text[i]! });
  const expect = (c: string, what: Expected) => {
    if (text[i] !== c) missing(t.t(EXPECTED[what]));
    i++;
  };
  const string = (): string => {
    const start = i;
    expect('"', 'string');
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail('portal.authoring.json.controlCharacter');
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('portal.authoring.json.unicodeEscape');
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[i] ?? '')) fail('portal.authoring.json.unknownEscape');
      }
      i++;
    }
    if (i >= text.length) {
      i = start;
      fail('portal.authoring.json.unclosedString');
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
        if (text[i] === '}') fail('portal.authoring.json.commaBefore', { close: '}' });
        if (text[i] !== '"') fail('portal.authoring.json.propertyName');
        const keyLine = lineAt(i);
        const key = string();
        ws();
        expect(':', 'colon');
        const child = path ? `${path}.${key}` : key;
        value(child);
        lines.set(child, keyLine);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expect('}', 'commaOrBrace');
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
          if (text[i] === ']') fail('portal.authoring.json.commaBefore', { close: ']' });
          continue;
        }
        expect(']', 'commaOrBracket');
        return;
      }
    }
    if (c === '"') return void string();
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!literal) missing(t.t('portal.authoring.json.expected.value'));
    i += literal![0].length;
  };
  try {
    value('');
    ws();
    if (i < text.length) fail('portal.authoring.json.afterEnd');
    return { ok: true, lines };
  } catch (err) {
    if (!(err instanceof ScanError)) throw err;
    const line = lineAt(err.at);
    const column = err.at - text.lastIndexOf('\n', err.at - 1);
    return { ok: false, line, column, message: t.t(err.key, err.values) };
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
