// A page's texts are read by the question types' parts too, so they live with the content (catalog/content/page-texts.ts).
export { pageTexts, plainTexts, type PageTexts } from '../../catalog/content/page-texts.js';
