import { describe, expect, it } from 'vitest';
import { createContentCache } from '../../catalog/content/content-cache.js';
import { staffAssetUrl } from '../../catalog/content/content-format.js';
import { pageTexts } from './page-content.js';

describe('pageTexts', () => {
  it('renders a Markdown version once per field and keeps it (the cache holds the version)', () => {
    const cache = createContentCache({ assetUrl: staffAssetUrl });
    const texts = pageTexts({ testVersionId: 'tv_md', contentFormat: 'markdown' }, cache);
    const first = texts.block('q1.prompt', 'Is $x^2$ ![a square](asset:ast_abc) <b>?</b>');
    expect(first.value).toMatch(/^<p>Is <math dir="ltr"><semantics>[\s\S]*<\/math> <img src="\/portal\/content-assets\/ast_abc" alt="a square"> &lt;b&gt;\?&lt;\/b&gt;<\/p>\n$/);
    expect(texts.block('q1.prompt', 'Is $x^2$ ![a square](asset:ast_abc) <b>?</b>')).toBe(first);
    expect(texts.inline('q1.options.a', '**a**').value).toBe('<strong>a</strong>');
    expect(texts.text('power $2$ and ![a square](asset:ast_abc)')).toBe('power 2 and a square');
    expect(texts.markdown).toBe(true);
    expect(cache.size).toBe(1);
  });

  it('shows a plain version exactly as written, escaped, without touching the cache', () => {
    const cache = createContentCache({ assetUrl: staffAssetUrl });
    const texts = pageTexts({ testVersionId: 'tv_plain', contentFormat: 'plain' }, cache);
    expect(texts.block('q1.prompt', 'Is $x^2$ <b>*so*</b>?\nYes').value).toBe('Is $x^2$ &lt;b&gt;*so*&lt;/b&gt;?\nYes');
    expect(texts.inline('q1.options.a', '**a**').value).toBe('**a**');
    expect(texts.text('  **a**  ')).toBe('  **a**  ');
    expect(texts.markdown).toBe(false);
    expect(cache.size).toBe(0);
  });
});
