import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { questionTypeScripts } from '../../src/modules/catalog/question-types/registry.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * The test page in Japanese, through the product: a candidate whose browser
 * asks for Japanese gets a page whose every word Assay adds (the timer, the
 * navigator, the submit dialog, each question type's hints, buttons and
 * accessible names, the saved answers' descriptions) is the Japanese
 * catalogue's, `<html lang="ja">`, and the messages its scripts format in the
 * browser sent with it. The test's own texts are Japanese too, so any
 * English left on the page is Assay's.
 */
const MESSAGES = path.resolve(import.meta.dirname, '../../src/platform/i18n/messages');
const catalogue = (tag: string) => JSON.parse(fs.readFileSync(path.join(MESSAGES, `${tag}.json`), 'utf8')) as Record<string, string>;
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#fdf6f0"/></svg>';

const test = (image: string): TestInput => ({
  title: '総合テスト',
  description: '各問題の形式を確かめるテスト',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    { id: 'es', type: 'essay', prompt: '産業革命について述べなさい。', points: 10, rubric: '要点が明確であること。', maxWords: 300 },
    {
      id: 'or',
      type: 'ordering',
      prompt: '手順を正しい順に並べなさい。',
      points: 3,
      items: [
        { id: 'a', text: '安全を確認する' },
        { id: 'b', text: '反応を確かめる' },
        { id: 'c', text: '気道を確保する' },
      ],
    },
    {
      id: 'ht',
      type: 'hot_text',
      prompt: '動詞を選びなさい。',
      points: 2,
      text: '猫が{{sat}}、{{mat}}の上で{{purred}}。',
      hotspots: [
        { id: 'sat', phrase: '座り' },
        { id: 'mat', phrase: '敷物' },
        { id: 'purred', phrase: '喉を鳴らした' },
      ],
      correct: ['sat', 'purred'],
      maxChoices: 2,
    },
    {
      id: 'as',
      type: 'associate',
      prompt: '同じ意味の語を組にしなさい。',
      points: 2,
      items: [
        { id: 'big', text: '大きい' },
        { id: 'large', text: '巨大な' },
        { id: 'small', text: '小さい' },
        { id: 'little', text: 'ちいさな' },
      ],
      pairs: [
        { a: 'big', b: 'large' },
        { a: 'small', b: 'little' },
      ],
      maxAssociations: 2,
    },
    {
      id: 'sp',
      type: 'select_point',
      prompt: '左心室に点を置きなさい。',
      points: 2,
      image,
      imageAlt: '心臓の図',
      maxPoints: 2,
      areas: [{ id: 'lv', label: '左心室', shape: 'rect', coords: [100, 100, 200, 200], points: 2 }],
    },
    { id: 'fu', type: 'file_upload', prompt: 'レポートを提出しなさい。', points: 10, rubric: '内容で評価する。', accept: ['application/pdf', 'text/plain'], maxBytes: 2 * 1024 * 1024 },
  ],
});

let h: Harness;
let html: string;
beforeAll(async () => {
  h = await createHarness();
  const up = await h.app.inject({ method: 'POST', url: '/api/admin/v1/assets', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/svg+xml' }, payload: SVG });
  expect(up.statusCode, up.body).toBe(201);
  const testId = await createPublishedTest(h, h.a, test(`asset:${up.json().assetId}`));
  const a = await assign(h, h.a, { testId, externalUserId: 'ja-1' });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  // Saved answers, so the page also describes a placed point, a pair made and a file uploaded.
  const saved = await s.save(a.assignmentId, [
    { questionId: 'sp', value: [{ x: 150, y: 150 }], version: 1 },
    { questionId: 'as', value: [['big', 'large']], version: 1 },
  ]);
  expect(saved.statusCode, saved.body).toBe(200);
  const uploaded = await h.app.inject({
    method: 'POST',
    url: `/a/${a.assignmentId}/files/fu`,
    headers: { 'content-type': 'text/plain', 'x-file-name': encodeURIComponent('レポート.txt'), 'x-answer-version': '1', cookie: s.cookie!, 'x-csrf-token': s.csrf! },
    payload: Buffer.from('産業革命についてのレポート\n'),
  });
  expect(uploaded.statusCode, uploaded.body).toBe(200);
  const res = await h.app.inject({ method: 'GET', url: `/a/${a.assignmentId}`, headers: { cookie: s.cookie!, 'accept-language': 'ja' } });
  expect(res.statusCode).toBe(200);
  html = res.body;
});
afterAll(() => h.close());

describe('the test page in Japanese', () => {
  it('is marked as Japanese and shows the Japanese words of the page and of every question type on it', () => {
    expect(html).toContain('<html lang="ja" dir="ltr">');
    for (const id of ['es', 'or', 'ht', 'as', 'sp', 'fu']) expect(html).toContain(`data-question-id="${id}"`);
    expect(html).toContain('<span class="question-number">問題1</span>');
    expect(html).toContain('id="open-submit">解答を提出</button>');
    expect(html).toContain('0語（最大300語）');
    expect(html).toContain('aria-label="上へ移動：反応を確かめる"');
    expect(html).toContain('点1：150, 150 — 左心室の中');
    expect(html).toContain('aria-label="ペアを削除：大きいと巨大な"');
    expect(html).toContain('PDFまたはプレーンテキスト、2 MBまで。');
    expect(html).toContain('提出ファイル：<span class="file-name">レポート.txt</span>');
  });

  it('holds no English sentence of the catalogue where Japanese has its own', () => {
    const en = catalogue('en');
    const ja = catalogue('ja');
    // The portal's English-only keys have no Japanese of their own (and may be one word, "Delete", that the page's author text holds).
    const english = Object.entries(en).filter(([key, text]) => text.length > 3 && ja[key] !== undefined && ja[key] !== text);
    expect(english.length).toBeGreaterThan(100);
    // What people read and hear: the text between tags and the attributes that name or describe, not the
    // markup's ids and classes (data-answered) nor the JSON blocks, whose keys are English words.
    const page = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
    const attributes = Array.from(page.matchAll(/\s(?:aria-label|alt|title|placeholder)="([^"]*)"/g), (m) => m[1]!);
    const read = [page.replace(/<[^>]*>/g, ' '), ...attributes].join('\n');
    const shown = english.filter(([, text]) => read.includes(text));
    expect(shown).toEqual([]);
    // The check does see English: the same page in English holds these messages.
    expect(read).not.toContain('Submit test');
  });

  it("sends every message its scripts format in the browser, in Japanese", () => {
    const messages = JSON.parse(/<script type="application\/json" id="assay-messages">(.*?)<\/script>/s.exec(html)![1]!) as { locale: string; messages: Record<string, string> };
    expect(messages.locale).toBe('ja');
    // The page's scripts: its own, and the question types' (one file on the page, question-types.js), whose keys are their own.
    const pageScripts = ['student.js', 'test-saving.js', 'test-timer.js', 'test-status.js', 'question-fields.js'].map((f) => fs.readFileSync(path.resolve(import.meta.dirname, '../../src/modules/student/assets', f), 'utf8'));
    const typeScripts = questionTypeScripts('student')
      .filter((u) => ['essay', 'ordering', 'hot-text', 'associate', 'select-point', 'file-upload'].some((folder) => u.pathname.includes(`/question-types/${folder}/`)))
      .map((u) => fs.readFileSync(u, 'utf8'));
    const used = new Set(Array.from([...pageScripts, ...typeScripts].join('\n').matchAll(/'((?:test|save|question)\.[A-Za-z.]+)'/g), (m) => m[1]!));
    expect(used.size).toBeGreaterThan(40);
    expect([...used].filter((key) => !(key in messages.messages))).toEqual([]);
    const ja = catalogue('ja');
    for (const key of used) expect(messages.messages[key]).toBe(ja[key]);
  });
});
