import { describe, expect, it } from 'vitest';
import { ContentSniffer, DOCX, PPTX, XLSX, accepted, judgeContent } from './file-content.js';

/** The upload's type by content: signatures, zip-based office formats, UTF-8 text; fed in chunks of any size. */
function sniff(bytes: Buffer, chunk = bytes.length || 1): string | null {
  const s = new ContentSniffer();
  for (let i = 0; i < bytes.length; i += chunk) s.push(bytes.subarray(i, i + chunk));
  return s.finish();
}

function zip(entries: Array<{ name: string; data?: Buffer; stored?: boolean }>): Buffer {
  return Buffer.concat(
    entries.map(({ name, data = Buffer.alloc(0) }) => {
      const h = Buffer.alloc(30);
      h.writeUInt32LE(0x04034b50, 0);
      h.writeUInt16LE(20, 4);
      h.writeUInt16LE(0, 8);
      h.writeUInt32LE(data.length, 18);
      h.writeUInt32LE(data.length, 22);
      h.writeUInt16LE(Buffer.byteLength(name), 26);
      return Buffer.concat([h, Buffer.from(name, 'latin1'), data]);
    }),
  );
}

describe('ContentSniffer', () => {
  it.each([
    ['PDF', Buffer.from('%PDF-1.7\n...'), 'application/pdf'],
    ['PNG', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'image/png'],
    ['JPEG', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'image/jpeg'],
    ['GIF', Buffer.from('GIF89a\x01\x00', 'latin1'), 'image/gif'],
    ['WebP', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]), 'image/webp'],
    ['UTF-8 text', Buffer.from('naïve café – ok\n'), 'text/plain'],
    ['text with NUL', Buffer.from('abc\0def'), 'application/octet-stream'],
    ['invalid UTF-8', Buffer.from([0x61, 0xc3, 0x28]), 'application/octet-stream'],
    ['truncated UTF-8 at the end', Buffer.from([0x61, 0xe2, 0x82]), 'application/octet-stream'],
    ['Windows executable', Buffer.from([0x4d, 0x5a, 0x90, 0x00]), 'application/octet-stream'],
  ])('%s', (_name, bytes, type) => {
    expect(sniff(bytes)).toBe(type);
    // One byte at a time: multi-byte characters and signatures cut across chunks.
    expect(sniff(bytes, 1)).toBe(type);
  });

  it('tells the office formats inside a zip, also when the telling entry comes late or is cut by a chunk boundary', () => {
    const padding = { name: 'docProps/thumbnail.jpeg', data: Buffer.alloc(100_000, 0x41) };
    expect(sniff(zip([{ name: '[Content_Types].xml' }, { name: '_rels/.rels' }, padding, { name: 'word/document.xml' }]), 4093)).toBe(DOCX);
    expect(sniff(zip([{ name: '[Content_Types].xml' }, { name: 'xl/workbook.xml' }]), 7)).toBe(XLSX);
    expect(sniff(zip([{ name: '[Content_Types].xml' }, { name: 'ppt/presentation.xml' }]))).toBe(PPTX);
    expect(sniff(zip([{ name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.text') }, { name: 'content.xml' }]))).toBe(
      'application/vnd.oasis.opendocument.text',
    );
    expect(sniff(zip([{ name: 'word/document.xml' }]))).toBe('application/zip');
    expect(sniff(zip([{ name: 'notes.txt' }]))).toBe('application/zip');
  });

  it('an empty file is nothing', () => {
    expect(new ContentSniffer().finish()).toBeNull();
  });
});

describe('judgeContent and accepted', () => {
  it('refuses a claim the content contradicts, and lets an unknown or text claim stand as documented', () => {
    expect(judgeContent('image/png', 'application/pdf')).toEqual({ ok: false, message: "The file's content is image/png, not application/pdf." });
    expect(judgeContent('application/octet-stream', 'image/png')).toEqual({ ok: false, message: "The file's content is not a recognised type, not image/png." });
    expect(judgeContent('text/plain', 'application/pdf')).toMatchObject({ ok: false });
    expect(judgeContent('application/zip', DOCX)).toMatchObject({ ok: false });
    expect(judgeContent(null, 'text/plain')).toEqual({ ok: false, message: 'The file is empty.' });
    expect(judgeContent('image/png', '')).toEqual({ ok: true, type: 'image/png' });
    expect(judgeContent('image/png', 'application/octet-stream')).toEqual({ ok: true, type: 'image/png' });
    expect(judgeContent('text/plain', 'text/csv; charset=utf-8')).toEqual({ ok: true, type: 'text/csv' });
    expect(judgeContent(DOCX, 'application/zip')).toEqual({ ok: true, type: DOCX });
  });

  it('matches exact types and type/* wildcards, ignoring case and parameters', () => {
    expect(accepted(['image/*'], 'image/webp')).toBe(true);
    expect(accepted(['image/*'], 'application/pdf')).toBe(false);
    expect(accepted(['Application/PDF'], 'application/pdf')).toBe(true);
    expect(accepted(['text/plain'], 'text/csv')).toBe(false);
    expect(accepted(['*/*'], 'application/zip')).toBe(true);
  });
});
