/** The file's words on the student page: the accepted types and sizes as people say them (question-fields.js formats sizes the same way). */
import type { Translator } from '../../../../platform/i18n/catalogue.js';

const TYPE_NAMES: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/gif': 'GIF',
  'image/webp': 'WebP',
  'text/plain': 'plain text',
  'text/csv': 'CSV',
  'application/zip': 'ZIP',
  'application/msword': 'Word (.doc)',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word (.docx)',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel (.xlsx)',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'PowerPoint (.pptx)',
  'application/vnd.oasis.opendocument.text': 'OpenDocument text (.odt)',
  'application/vnd.oasis.opendocument.spreadsheet': 'OpenDocument spreadsheet (.ods)',
};

/**
 * "PDF or PNG", "PDF, PNG or JPEG": the accepted types in words. Given the
 * page's translator, "plain text" is said in its language and the names are
 * joined as the language lists alternatives (Intl's disjunction); without
 * one, in English as written above.
 */
export function acceptedTypesText(accept: readonly string[], t?: Translator): string {
  const name = (type: string) => (t && type.toLowerCase() === 'text/plain' ? t.t('question.fileUpload.plainText') : (TYPE_NAMES[type.toLowerCase()] ?? type));
  const names = accept.map(name);
  if (t) return t.orList(names);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/**
 * A size for people: 820 bytes, 14 KB, 2.5 MB (binary units, as the limit is
 * set). Given the page's translator, the number and its unit are the
 * language's own through Intl (`14 kB`, `14 KB` in Japanese, `14 кБ`);
 * without one, in English as written here.
 */
export function formatBytes(bytes: number, t?: Translator): string {
  if (t && bytes < 1024) return t.number(bytes, { style: 'unit', unit: 'byte', unitDisplay: 'long' });
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const [n, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / (1024 * 1024), 'MB'];
  if (t) return t.number(n, { style: 'unit', unit: unit === 'KB' ? 'kilobyte' : 'megabyte', maximumFractionDigits: n < 10 ? 1 : 0 });
  return `${n < 10 ? Math.round(n * 10) / 10 : Math.round(n)} ${unit}`;
}
