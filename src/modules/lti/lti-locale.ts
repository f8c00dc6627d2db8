import { decodeJwt } from 'jose';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { englishTranslator, translator, type Translator } from '../../platform/i18n/catalogue.js';
import { chooseLocale } from '../../platform/i18n/locales.js';
import { isWellFormedLocale } from '../assignments/partner-locale.js';
import { CLAIM } from './lti-context.js';

/**
 * The language of the LTI pages a learner (or anyone a launch may come from)
 * sees: the platform's `launch_presentation.locale` when it sends a
 * well-formed one, else the browser's Accept-Language, else English
 * (docs/languages.md, docs/lti.md). Pages only instructors and LMS
 * administrators see stay in English, as the staff portal does (staffTranslator).
 */

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * The launch presentation claim's `locale` (the learner's language in the
 * platform) when it is a well-formed BCP 47 tag; a malformed one is left out
 * rather than failing the launch.
 */
export function launchLocale(claims: Record<string, unknown>): string | null {
  const raw = obj(claims[CLAIM.launchPresentation]).locale;
  return typeof raw === 'string' && isWellFormedLocale(raw) ? raw : null;
}

/**
 * The locale claim of an id_token that was refused or not verified yet, read
 * without its signature. It only picks which of the catalogues a page speaks:
 * nothing else of an unverified token is ever used, and a forged one can do
 * no more than choose the language of its own refusal.
 */
export function unverifiedLaunchLocale(idToken: unknown): string | null {
  if (typeof idToken !== 'string' || idToken === '' || idToken.length > 65536) return null;
  try {
    return launchLocale(decodeJwt(idToken) as Record<string, unknown>);
  } catch {
    return null;
  }
}

/** The page's language: the candidate's own choice on an assignment they already have, the launch's locale, the assignment's, the browser's. */
export function ltiTranslator(
  ctx: AppContext,
  wanted: { launchLocale: string | null; acceptLanguage: string | undefined; candidateLocale?: string | null; assignmentLocale?: string | null },
): Translator {
  return translator(
    chooseLocale(
      { candidate: wanted.candidateLocale ?? null, assignment: wanted.launchLocale ?? wanted.assignmentLocale ?? null, acceptLanguage: wanted.acceptLanguage },
      { pseudo: ctx.config.pseudoLocale },
    ),
  );
}

/** The language of a page answering `request` before (or without) a verified launch: the posted id_token's locale claim, else the browser's. */
export function requestTranslator(ctx: AppContext, request: FastifyRequest): Translator {
  const body = obj(request.body);
  return ltiTranslator(ctx, { launchLocale: unverifiedLaunchLocale(body.id_token), acceptLanguage: request.headers['accept-language'] });
}

/** Instructors' and LMS administrators' pages (the link's progress, the test picker, registration): English, like the staff portal. */
export const staffTranslator = englishTranslator;
