import { createContentCache } from './content-cache.js';
import { staffAssetUrl, studentAssetUrl } from './content-format.js';

/** The caches the pages share: the student page's (assets under /a/) and the portal's (assets under /portal). */
export const studentContent = createContentCache({ assetUrl: studentAssetUrl });
export const staffContent = createContentCache({ assetUrl: staffAssetUrl });
