import { describe, expect, it } from 'vitest';
import { createContentCache } from './content-cache.js';

describe('the rendered content cache', () => {
  const version = { testVersionId: 'tv_1', contentFormat: 'markdown' as const };

  it('renders a field once per version, and a field whose text differs per candidate as each one wrote it', () => {
    const cache = createContentCache({ assetUrl: (id) => `/assets/${id}` });
    const first = cache.render(version, 'q1.prompt', 'A box of **3** eggs');
    expect(String(first)).toContain('<strong>3</strong>');
    expect(cache.render(version, 'q1.prompt', 'A box of **3** eggs')).toBe(first);
    // A parametrised question's prompt with another candidate's value: never the first candidate's text.
    expect(String(cache.render(version, 'q1.prompt', 'A box of **7** eggs'))).toContain('<strong>7</strong>');
    expect(cache.render(version, 'q1.prompt', 'A box of **3** eggs')).toBe(first);
  });
});
