/**
 * The little of fontkit (MIT; pdfkit's font engine, which ships no types)
 * that the report's PDF uses: opening a font file (one face of a collection
 * by its PostScript name), its vertical metrics and whether it has a glyph.
 */
declare module 'fontkit' {
  export interface Font {
    readonly postscriptName: string;
    readonly familyName: string;
    readonly unitsPerEm: number;
    readonly ascent: number;
    readonly descent: number;
    readonly lineGap: number;
    hasGlyphForCodePoint(codePoint: number): boolean;
    layout(text: string): unknown;
  }
  export interface FontCollection {
    readonly fonts: Font[];
    getFont(postscriptName: string): Font | null;
  }
  export function openSync(path: string, postscriptName?: string): Font | FontCollection;
}
