import { RE2JS } from 're2js';

/**
 * XML Schema regular expressions (the dialect of QTI's `patternMatch` and of
 * a short-text answer's `pattern`), run by re2js: RE2's automaton, whose
 * time is linear in the input whatever the pattern, so no pattern can stall
 * the process (`(a+)+b` against forty a's answers at once).
 *
 * An XSD pattern always matches the whole string, has no anchors (`^` and
 * `$` are ordinary characters), and its `.`, `\d`, `\w`, `\s`, `\i` and `\c`
 * mean what XSD says. What RE2 cannot run the same way — character-class
 * subtraction (`[a-z-[aeiou]]`) and Unicode block names (`\p{IsBasicLatin}`)
 * — is refused with that reason rather than run with another meaning.
 */
export interface XsdPattern {
  /** Whether the whole of `text` matches. */
  test(text: string): boolean;
}

export const XSD_PATTERN_LIMITS = {
  /** Characters in a pattern. */
  maxPatternLength: 1_000,
  /** Characters of an answer a pattern is run against; longer answers do not match. */
  maxInputLength: 10_000,
} as const;

export class XsdPatternError extends Error {}

// XML 1.0 (fifth edition) name characters, as class contents.
const NAME_START = '_:A-Za-z\\x{C0}-\\x{D6}\\x{D8}-\\x{F6}\\x{F8}-\\x{2FF}\\x{370}-\\x{37D}\\x{37F}-\\x{1FFF}\\x{200C}-\\x{200D}\\x{2070}-\\x{218F}\\x{2C00}-\\x{2FEF}\\x{3001}-\\x{D7FF}\\x{F900}-\\x{FDCF}\\x{FDF0}-\\x{FFFD}';
const NAME_CHAR = `${NAME_START}\\-.0-9\\x{B7}\\x{300}-\\x{36F}\\x{203F}-\\x{2040}`;

/** XSD's multi-character escapes, as RE2 class contents (`in`) and as whole atoms (`out`). */
const CLASS_ESCAPES: Record<string, { in: string | null; out: string }> = {
  d: { in: '\\p{Nd}', out: '\\p{Nd}' },
  D: { in: null, out: '\\P{Nd}' },
  s: { in: ' \\t\\n\\r', out: '[ \\t\\n\\r]' },
  S: { in: null, out: '[^ \\t\\n\\r]' },
  w: { in: null, out: '[^\\p{P}\\p{Z}\\p{C}]' },
  W: { in: '\\p{P}\\p{Z}\\p{C}', out: '[\\p{P}\\p{Z}\\p{C}]' },
  i: { in: NAME_START, out: `[${NAME_START}]` },
  I: { in: null, out: `[^${NAME_START}]` },
  c: { in: NAME_CHAR, out: `[${NAME_CHAR}]` },
  C: { in: null, out: `[^${NAME_CHAR}]` },
};
const SINGLE_ESCAPES = new Set(['n', 'r', 't', '\\', '|', '.', '?', '*', '+', '(', ')', '{', '}', '-', '[', ']', '^', '$']);

function refuse(why: string): never {
  throw new XsdPatternError(why);
}

/** The pattern in RE2's syntax, with XSD's meaning; throws XsdPatternError naming what is not supported. */
export function translateXsdPattern(pattern: string): string {
  if (pattern.length > XSD_PATTERN_LIMITS.maxPatternLength) refuse(`is longer than ${XSD_PATTERN_LIMITS.maxPatternLength} characters`);
  let out = '';
  let inClass = false;
  let afterQuantifier = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    const quantified = afterQuantifier;
    afterQuantifier = false;
    if (ch === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) refuse('ends with a lone backslash');
      i++;
      if (next === 'p' || next === 'P') {
        const m = /^\{([A-Za-z0-9-]+)\}/.exec(pattern.slice(i + 1));
        if (!m) refuse(`has \\${next} without a {category}`);
        if (m[1]!.startsWith('Is')) refuse(`names the Unicode block ${m[1]}, which is not supported (use a category such as \\p{L})`);
        out += `\\${next}{${m[1]}}`;
        i += m[0].length;
        continue;
      }
      const multi = CLASS_ESCAPES[next];
      if (multi) {
        if (!inClass) out += multi.out;
        else if (multi.in !== null) out += multi.in;
        else refuse(`uses \\${next} inside a character class, which is not supported`);
        continue;
      }
      if (SINGLE_ESCAPES.has(next)) {
        out += `\\${next}`;
        continue;
      }
      refuse(`has the escape \\${next}, which XML Schema does not define`);
    }
    if (inClass) {
      if (ch === '[') refuse(pattern[i - 1] === '-' ? 'subtracts a character class ([a-z-[aeiou]]), which is not supported' : 'has [ inside a character class');
      if (ch === ']') inClass = false;
      out += ch;
      continue;
    }
    switch (ch) {
      case '[':
        inClass = true;
        out += ch;
        if (pattern[i + 1] === '^') {
          out += '^';
          i++;
        }
        if (pattern[i + 1] === ']') refuse('has an empty character class');
        break;
      case '^':
      case '$':
        out += `\\${ch}`;
        break;
      case '.':
        out += '[^\\n\\r]';
        break;
      case '(':
        if (pattern[i + 1] === '?') refuse('has a (? group, which XML Schema does not define');
        out += ch;
        break;
      case '?':
      case '*':
      case '+':
      case '{': {
        // XSD has no lazy or possessive quantifiers: a quantifier after a quantifier is an error.
        if (quantified) refuse(`has a quantifier after a quantifier (…${pattern.slice(Math.max(0, i - 4), i + 1)})`);
        const bounds = ch === '{' ? /^\{\d+(,\d*)?\}/.exec(pattern.slice(i)) : null;
        if (ch === '{' && !bounds) refuse('has a { that is not a quantifier such as {2,5} (write \\{ for the character)');
        out += bounds ? bounds[0] : ch;
        if (bounds) i += bounds[0].length - 1;
        afterQuantifier = true;
        break;
      }
      default:
        out += ch;
    }
  }
  if (inClass) refuse('has a character class that is not closed');
  return out;
}

/** Compiles an XSD pattern; throws XsdPatternError (with a reason fit for an error's message) when it cannot be run. */
export function compileXsdPattern(pattern: string): XsdPattern {
  const translated = translateXsdPattern(pattern);
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated);
  } catch (err) {
    refuse(`is not a valid regular expression (${(err as Error).message.split('\n')[0]!.slice(0, 120)})`);
  }
  return {
    test(text: string): boolean {
      if (text.length > XSD_PATTERN_LIMITS.maxInputLength) return false;
      return re.matcher(text).matches();
    },
  };
}

/** The reason `pattern` cannot be used, or null when it can. */
export function xsdPatternProblem(pattern: string): string | null {
  try {
    compileXsdPattern(pattern);
    return null;
  } catch (err) {
    if (err instanceof XsdPatternError) return err.message;
    throw err;
  }
}
