/** The file's words on the student page: the accepted types and sizes as people say them (question-fields.js formats sizes the same way). */

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
};

/** "PDF or PNG", "PDF, PNG or JPEG": the accepted types in words. */
export function acceptedTypesText(accept: readonly string[]): string {
  const names = accept.map((t) => TYPE_NAMES[t.toLowerCase()] ?? t);
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** A size for people: 820 bytes, 14 KB, 2.5 MB (binary units, as the limit is set). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const [n, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KB'] : [bytes / (1024 * 1024), 'MB'];
  return `${n < 10 ? Math.round(n * 10) / 10 : Math.round(n)} ${unit}`;
}
