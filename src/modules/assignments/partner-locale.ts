import { AppError } from '../../platform/errors.js';
import { canonicalTag } from '../../platform/i18n/locales.js';

/** The longest `locale` kept (BCP 47 advises room for 35 characters; migrations/0038 checks the same). */
export const LOCALE_MAX_LENGTH = 35;

/**
 * Whether a partner's `locale` is a well-formed BCP 47 language tag, as
 * `Intl` parses one (`fr-CA`, `zh-Hant-TW`, `sr-Latn`). Well-formed is all
 * that is asked: a tag no catalogue serves (`nl`, `sw`) is kept, and the
 * page falls back from it visibly (docs/languages.md). Surrounding spaces
 * are refused rather than trimmed, since the tag is stored as sent.
 */
export function isWellFormedLocale(raw: string): boolean {
  return raw.length > 0 && raw.length <= LOCALE_MAX_LENGTH && raw.trim() === raw && canonicalTag(raw) !== null;
}

/** POST /assignments' `locale`: refused with 400 `invalid_request` naming the field when not well-formed (docs/api-rules.md). */
export function checkLocale(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!isWellFormedLocale(raw)) {
    throw new AppError('invalid_request', 'locale: must be a well-formed BCP 47 language tag, such as fr-CA', [
      { field: 'locale', message: 'must be a well-formed BCP 47 language tag, such as fr-CA' },
    ]);
  }
  return raw;
}
