import type { GraphicOrderQuestion } from './graphic-order-schema.js';

/** The example question the tests share: four stops of a walk on a map, in their correct order. */
export const route = (over: Partial<GraphicOrderQuestion> = {}): GraphicOrderQuestion => ({
  type: 'graphic_order',
  id: 'q1',
  prompt: 'Put the stops of the walk in order, starting at the car park.',
  points: 4,
  image: 'asset:ast_walk1',
  imageAlt: 'A map of a circular walk',
  regions: [
    { id: 'car', label: 'Car park', shape: 'rect', coords: [10, 10, 60, 50] },
    { id: 'mill', label: 'Old mill', shape: 'circle', coords: [150, 80, 20] },
    { id: 'ford', label: 'Ford', shape: 'circle', coords: [250, 160, 20] },
    { id: 'hill', label: 'Hill top', shape: 'poly', coords: [100, 200, 140, 150, 180, 200] },
  ],
  ...over,
});
