import fs from 'node:fs';
import path from 'node:path';
import * as fontkit from 'fontkit';

/**
 * The fonts the report's PDF embeds for a language that the standard PDF
 * fonts cannot write (docs/results.md, "The report's languages"): Noto Sans
 * for Latin, Greek and Cyrillic, Noto Sans Arabic, Hebrew and Devanagari, and
 * Noto Sans CJK (Japanese or Simplified Chinese forms of the shared Han
 * characters), all under the SIL Open Font License. They are not in the
 * repository: they are read from the font folders of ASSAY_REPORT_FONT_DIRS,
 * by default where Debian's fonts-noto-core and fonts-noto-cjk put them.
 *
 * Each file is parsed once per process and shared by every PDF (pdfkit embeds
 * only the glyphs a document uses). A face that is not found is logged once
 * and left out: report-pdf.ts then draws a report whose language needs it in
 * English, and a character no face carries as the missing-glyph box, never as
 * a wrong letter.
 */
export type FaceKey = 'latin' | 'arabic' | 'hebrew' | 'devanagari' | 'cjk-jp' | 'cjk-sc';

/** One weight of a face: the first of these files found, and the face's PostScript name inside a collection (.ttc). */
interface FileChoice {
  file: string;
  postscriptName?: string;
}
const FACE_FILES: Record<FaceKey, { family: string; regular: FileChoice[]; bold: FileChoice[] }> = {
  latin: { family: 'Noto Sans', regular: [{ file: 'NotoSans-Regular.ttf' }], bold: [{ file: 'NotoSans-Bold.ttf' }] },
  arabic: { family: 'Noto Sans Arabic', regular: [{ file: 'NotoSansArabic-Regular.ttf' }], bold: [{ file: 'NotoSansArabic-Bold.ttf' }] },
  hebrew: { family: 'Noto Sans Hebrew', regular: [{ file: 'NotoSansHebrew-Regular.ttf' }], bold: [{ file: 'NotoSansHebrew-Bold.ttf' }] },
  devanagari: { family: 'Noto Sans Devanagari', regular: [{ file: 'NotoSansDevanagari-Regular.ttf' }], bold: [{ file: 'NotoSansDevanagari-Bold.ttf' }] },
  'cjk-jp': {
    family: 'Noto Sans CJK JP',
    regular: [{ file: 'NotoSansCJK-Regular.ttc', postscriptName: 'NotoSansCJKjp-Regular' }, { file: 'NotoSansCJKjp-Regular.otf' }],
    bold: [{ file: 'NotoSansCJK-Bold.ttc', postscriptName: 'NotoSansCJKjp-Bold' }, { file: 'NotoSansCJKjp-Bold.otf' }],
  },
  'cjk-sc': {
    family: 'Noto Sans CJK SC',
    regular: [{ file: 'NotoSansCJK-Regular.ttc', postscriptName: 'NotoSansCJKsc-Regular' }, { file: 'NotoSansCJKsc-Regular.otf' }],
    bold: [{ file: 'NotoSansCJK-Bold.ttc', postscriptName: 'NotoSansCJKsc-Bold' }, { file: 'NotoSansCJKsc-Bold.otf' }],
  },
};

export interface Face {
  key: FaceKey;
  family: string;
  regular: fontkit.Font;
  /** The regular weight again when the bold file is missing. */
  bold: fontkit.Font;
}

/** Where a failure to find a face is told (the request's logger). */
export interface FontLog {
  warn(obj: object, msg: string): void;
}

const opened = new Map<string, fontkit.Font | null>();
const warned = new Set<string>();

function open(dirs: readonly string[], choices: FileChoice[]): fontkit.Font | null {
  for (const dir of dirs) {
    for (const c of choices) {
      const file = path.join(dir, c.file);
      const id = `${file}#${c.postscriptName ?? ''}`;
      if (!opened.has(id)) opened.set(id, fs.existsSync(file) ? loadFont(file, c.postscriptName) : null);
      const font = opened.get(id);
      if (font) return font;
    }
  }
  return null;
}

function loadFont(file: string, postscriptName: string | undefined): fontkit.Font | null {
  try {
    const f = fontkit.openSync(file, postscriptName);
    return 'hasGlyphForCodePoint' in f ? f : null;
  } catch {
    return null;
  }
}

/** A face from the folders, or null (told once per process and face). */
export function loadFace(key: FaceKey, dirs: readonly string[], log: FontLog): Face | null {
  const spec = FACE_FILES[key];
  const regular = open(dirs, spec.regular);
  if (!regular) {
    if (!warned.has(key)) {
      warned.add(key);
      log.warn({ font: spec.family, files: spec.regular.map((c) => c.file), dirs }, 'report PDF font not found: reports that need it are drawn in English, and its letters as missing glyphs');
    }
    return null;
  }
  return { key, family: spec.family, regular, bold: open(dirs, spec.bold) ?? regular };
}

/** The face a language is written in (its own script first; Han characters in Japanese or Chinese forms). */
export function faceOfLocale(locale: string): FaceKey {
  if (locale === 'ar') return 'arabic';
  if (locale === 'he') return 'hebrew';
  if (locale === 'hi') return 'devanagari';
  if (locale === 'ja') return 'cjk-jp';
  if (locale.startsWith('zh')) return 'cjk-sc';
  return 'latin';
}

const SCRIPT_FACES: Array<[RegExp, FaceKey | 'cjk']> = [
  [/\p{Script=Arabic}/u, 'arabic'],
  [/\p{Script=Hebrew}/u, 'hebrew'],
  [/\p{Script=Devanagari}/u, 'devanagari'],
  [/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u, 'cjk'],
  [/[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u, 'latin'],
];
const NEUTRAL = /[\p{Script=Common}\p{Script=Inherited}]/u;

/**
 * The face a character's script asks for; null for a character of no one
 * script (spaces, digits, punctuation, combining marks), which goes with its
 * neighbours. `cjk` names the language's Han forms.
 */
export function faceOfChar(ch: string, cjk: FaceKey): FaceKey | null {
  if (NEUTRAL.test(ch)) return null;
  for (const [re, key] of SCRIPT_FACES) if (re.test(ch)) return key === 'cjk' ? cjk : key;
  return 'latin';
}
