import { describe, expect, it } from 'vitest';
import { assetTypeOf, checkAssetBytes, sanitizeSvg, sniffRaster } from './asset-bytes.js';

const svg = (inner: string, attrs = '') => `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"${attrs}>${inner}</svg>`;

describe('asset types', () => {
  it('reads the declared type without parameters, and only the five image types', () => {
    expect(assetTypeOf('image/PNG')).toBe('image/png');
    expect(assetTypeOf('image/svg+xml; charset=utf-8')).toBe('image/svg+xml');
    expect(assetTypeOf('image/bmp')).toBeNull();
    expect(assetTypeOf(undefined)).toBeNull();
  });

  it('knows each raster type by its magic bytes', () => {
    expect(sniffRaster(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]))).toBe('image/png');
    expect(sniffRaster(Buffer.from([0xff, 0xd8, 0xff, 0xdb]))).toBe('image/jpeg');
    expect(sniffRaster(Buffer.from('GIF89a...'))).toBe('image/gif');
    expect(sniffRaster(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffRaster(Buffer.from('RIFF\0\0\0\0WAVEfmt '))).toBeNull();
    expect(sniffRaster(Buffer.from('<svg/>'))).toBeNull();
  });
});

describe('sanitizeSvg', () => {
  it('removes animation that could set an href, event handlers in any case, and mixed-case javascript: links', () => {
    const out = sanitizeSvg(
      svg('<a xlink:href="JaVaScRiPt:alert(1)"><rect width="1" height="1" ONCLICK="x()"/></a><animate attributeName="href" to="javascript:alert(2)"/><set attributeName="onclick" to="alert(3)"/>'),
    );
    expect(out).toBe(svg('<rect width="1" height="1"></rect>'));
  });

  it('keeps internal references and adds the SVG namespace when missing (needed for an SVG loaded as an image)', () => {
    expect(sanitizeSvg('<svg viewBox="0 0 1 1"><use href="#a"/><path id="a" d="M0 0L1 1" clip-path="url(#c)"/></svg>')).toBe(
      '<svg viewBox="0 0 1 1" xmlns="http://www.w3.org/2000/svg"><use href="#a"></use><path id="a" d="M0 0L1 1" clip-path="url(#c)"></path></svg>',
    );
  });

  it('drops style sheets (which could import or load from elsewhere) with their text', () => {
    expect(sanitizeSvg(svg('<style>@import url(https://evil.example/x.css); rect { fill: red }</style><rect width="1" height="1"/>'))).toBe(
      svg('<rect width="1" height="1"></rect>'),
    );
  });
});

describe('checkAssetBytes', () => {
  it('accepts an SVG with an XML declaration and stores it sanitised; a prefixed root (svg:svg) is refused', () => {
    const out = checkAssetBytes('image/svg+xml', Buffer.from(`<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><circle r="1"/></svg>`));
    expect(out.toString()).toBe('<svg xmlns="http://www.w3.org/2000/svg"><circle r="1"></circle></svg>');
    expect(() => checkAssetBytes('image/svg+xml', Buffer.from('<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>'))).toThrow(
      'The XML\'s root element is "svg:svg", not "svg".',
    );
  });

  it('refuses an SVG that is not UTF-8', () => {
    expect(() => checkAssetBytes('image/svg+xml', Buffer.from([0x3c, 0x73, 0x76, 0x67, 0xff, 0x2f, 0x3e]))).toThrow('The SVG is not valid UTF-8.');
  });
});

describe('sanitizeSvg: CSS escapes and loading functions', () => {
  const rect = (attr: string) => svg(`<rect width="1" height="1" ${attr}/>`);
  const kept = svg('<rect width="1" height="1"></rect>');

  it('drops a style or presentation attribute whose url( is written with CSS escapes, in every form CSS reads', () => {
    for (const value of [
      'fill:\\75 rl(http://evil.example/x)',
      'fill:\\000075rl(http://evil.example/x)',
      'fill:\\000075 rl(http://evil.example/x)',
      'fill:\\75\trl(http://evil.example/x)',
      'fill:\\55 RL(http://evil.example/x)',
      'fill:u\\rl(http://evil.example/x)',
      'fill:\\u\\r\\l(http://evil.example/x)',
      'fill:ur/**/l(http://evil.example/x)',
    ]) {
      expect(sanitizeSvg(rect(`style="${value}"`)), value).toBe(kept);
    }
    expect(sanitizeSvg(rect('fill="\\75 rl(http://evil.example/x)"'))).toBe(kept);
  });

  it('drops @import, expression(), image-set(), image(), element(), cross-fade() and src() however they are escaped', () => {
    for (const value of [
      '@import "https://evil.example/x.css"',
      '@\\69mport "x.css"',
      'width:expression(alert(1))',
      'width:e\\78pression(alert(1))',
      'fill:image-set("https://evil.example/x.png" 1x)',
      'fill:-webkit-image-set("x.png" 1x)',
      'fill:image("x.png")',
      'fill:element(#a)',
      'fill:cross-fade(url(#a), url(#b))',
      'fill:src("x.png")',
    ]) {
      expect(sanitizeSvg(rect(`style='${value}'`)), value).toBe(kept);
    }
  });

  it('keeps ordinary styles and internal url(#…) references, escaped or not', () => {
    expect(sanitizeSvg(rect('style="fill:#f00;stroke:blue;stroke-width:2"'))).toBe(svg('<rect width="1" height="1" style="fill:#f00;stroke:blue;stroke-width:2"></rect>'));
    expect(sanitizeSvg(rect('style="fill:\\75 rl(#grad)"'))).toBe(svg('<rect width="1" height="1" style="fill:\\75 rl(#grad)"></rect>'));
  });
});
