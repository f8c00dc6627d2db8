/**
 * `Content-Disposition` for a file named in people's words (a test's title,
 * a candidate's upload), in any script (RFC 6266): `filename` is an ASCII
 * stand-in every browser reads (accents dropped; quotes, separators, wildcards,
 * controls and other scripts become spaces), `filename*` the exact name in
 * UTF-8, percent-encoded (RFC 5987), which current browsers prefer. Neither
 * can carry a quote, a line break or a path out of the header.
 */
export function contentDisposition(fileName: string, kind: 'attachment' | 'inline' = 'attachment', fallback = 'download'): string {
  const dot = fileName.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [fileName.slice(0, dot), fileName.slice(dot)] : [fileName, ''];
  const ascii = (s: string) =>
    s
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\x20-\x7e]|["\\%;/:*?<>|]/g, ' ')
      .replace(/ {2,}/g, ' ')
      .replace(/^[-. ]+|[-. ]+$/g, '')
      .slice(0, 100);
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii(stem) || fallback}${ascii(extension) ? `.${ascii(extension)}` : ''}"; filename*=UTF-8''${encoded}`;
}

/** An attachment named by a title and an extension: the title without controls or path separators, cut at 150 characters. */
export function attachment(name: string, extension: string, fallback = 'download'): string {
  const base = Array.from(name.normalize('NFC').replace(/[\u0000-\u001f\u007f/\\]+/g, ' ').trim()).slice(0, 150).join('').trim() || fallback;
  return contentDisposition(`${base}.${extension}`, 'attachment', fallback);
}
