/** How a test's texts are written (docs/content.md): plain text as in v1 files, or Markdown with math. */
export const CONTENT_FORMATS = ['plain', 'markdown'] as const;
export type ContentFormat = (typeof CONTENT_FORMATS)[number];

/** An image's source in Markdown: `![alt](asset:ast_…)`. */
export const ASSET_REF = /^asset:(ast_[0-9A-Za-z]{1,64})$/;

/** Where the pages load an asset's bytes: the student's path sits under /a/ (their session cookie's path), staff's under /portal. */
export const studentAssetUrl = (assetId: string) => `/a/content-assets/${assetId}`;
export const staffAssetUrl = (assetId: string) => `/portal/content-assets/${assetId}`;
