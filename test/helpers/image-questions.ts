import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, type Harness } from './harness.js';

/**
 * The image question types' examples (docs/examples/tests/hotspot.json and
 * graphic_order.json) with a real image: a drawing whose shapes sit where
 * the example's regions are, uploaded as a content asset.
 */
const example = (name: string) => JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, `../../docs/examples/tests/${name}.json`), 'utf8')) as TestInput;

/** The heart example's picture: four chambers and an arch, unlabelled, 400 × 360. */
export const HEART_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="360" viewBox="0 0 400 360">
<rect width="400" height="360" fill="#fdf6f3"/>
<circle cx="200" cy="30" r="25" fill="#f4b6a6" stroke="#8a2b1a" stroke-width="3"/>
<rect x="60" y="60" width="120" height="90" rx="20" fill="#f7c9bd" stroke="#8a2b1a" stroke-width="3"/>
<rect x="220" y="60" width="120" height="90" rx="20" fill="#f7c9bd" stroke="#8a2b1a" stroke-width="3"/>
<polygon points="60,170 190,170 200,330 90,300" fill="#e99a87" stroke="#8a2b1a" stroke-width="3"/>
<polygon points="210,170 340,170 320,300 210,340" fill="#e99a87" stroke="#8a2b1a" stroke-width="3"/>
</svg>`;

/** The walk example's map: a footpath loop past four stops, 480 × 320. */
export const WALK_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="320" viewBox="0 0 480 320">
<rect width="480" height="320" fill="#eef6e9"/>
<path d="M60 275 C 60 120, 120 90, 140 90 S 290 60, 300 80 S 420 180, 400 230 S 150 300, 60 275" fill="none" stroke="#7a5c2e" stroke-width="5" stroke-dasharray="10 6"/>
<rect x="20" y="250" width="80" height="50" fill="#c9d3de" stroke="#394b5e" stroke-width="3"/>
<circle cx="140" cy="90" r="30" fill="#d8c3a5" stroke="#6b4e2a" stroke-width="3"/>
<polygon points="300,40 360,110 240,110" fill="#9cc28a" stroke="#3f6b2e" stroke-width="3"/>
<circle cx="400" cy="230" r="28" fill="#a9cfee" stroke="#2d5f8a" stroke-width="3"/>
</svg>`;

export async function uploadImage(h: Harness, svg: string): Promise<string> {
  const res = await h.app.inject({ method: 'POST', url: '/api/admin/v1/assets', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/svg+xml' }, payload: svg });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().assetId as string;
}

/** The example test of `type` showing the uploaded image. */
export async function imageExample(h: Harness, type: 'hotspot' | 'graphic_order'): Promise<TestInput> {
  const input = example(type);
  const assetId = await uploadImage(h, type === 'hotspot' ? HEART_SVG : WALK_SVG);
  (input.questions![0] as unknown as { image: string }).image = `asset:${assetId}`;
  return input;
}
