import { describe, expect, it } from 'vitest';
import { translator } from '../i18n/catalogue.js';
import { chooseLocale } from '../i18n/locales.js';
import { html } from './html.js';
import { messageWithMarkup } from './message-markup.js';

const t = (tag: string) => translator(chooseLocale({ acceptLanguage: tag }));

describe('a message with markup in it', () => {
  it('puts each argument’s markup where the language’s sentence has it, the rest escaped', () => {
    const parts = { name: html`<span class="file-name">a&lt;b&gt;.txt</span>`, size: html`<span class="file-size">40 bytes</span>` };
    expect(messageWithMarkup(t('en'), 'question.fileUpload.current', {}, parts).toString()).toBe(
      'Your file: <span class="file-name">a&lt;b&gt;.txt</span> (<span class="file-size">40 bytes</span>)',
    );
    expect(messageWithMarkup(t('ja'), 'question.fileUpload.current', {}, parts).toString()).toBe(
      '提出ファイル：<span class="file-name">a&lt;b&gt;.txt</span>（<span class="file-size">40 bytes</span>）',
    );
  });

  it('escapes the plain values formatted into the message', () => {
    const shown = messageWithMarkup(t('en'), 'question.associate.pair', { a: '<script>' }, { b: html`<em>B</em>` }).toString();
    expect(shown).toBe('&lt;script&gt; and <em>B</em>');
  });
});
