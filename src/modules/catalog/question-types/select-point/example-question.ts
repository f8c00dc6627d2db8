import type { SelectPointQuestion } from './schema.js';

/**
 * The heart, 400 × 300 pixels: a rectangle, a circle, a triangle, and a
 * valve that overlaps the rectangle's bottom-right corner (listed after it,
 * so a point in both counts for the rectangle). Shared by this folder's
 * tests and the browser test of the page part.
 */
export const heart: SelectPointQuestion & { id: string } = {
  type: 'select_point',
  id: 'sp1',
  prompt: 'Mark the chambers.',
  points: 4,
  image: 'asset:ast_heart',
  imageAlt: 'A diagram of the heart',
  areas: [
    { id: 'lv', label: 'Left ventricle', shape: 'rect', coords: [100, 100, 200, 200], points: 2 },
    { id: 'ao', label: 'Aorta', shape: 'circle', coords: [250, 80, 30], points: 1 },
    { id: 'ra', label: 'Right atrium', shape: 'poly', coords: [220, 150, 300, 150, 260, 230], points: 1 },
    { id: 'valve', label: 'Valve', shape: 'rect', coords: [180, 180, 240, 240], points: 3 },
  ],
  maxPoints: 3,
};
