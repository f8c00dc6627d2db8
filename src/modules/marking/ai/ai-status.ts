import type { Config } from '../../../platform/config.js';

/**
 * Whether AI marking is on, for the boot log and for pages (the portal's
 * Marking page says when it is off). Never carries the API key.
 */
export interface AiMarkingStatus {
  enabled: boolean;
  model: string | null;
}

export function aiMarkingStatus(config: Readonly<Config>): AiMarkingStatus {
  return { enabled: config.ai !== null, model: config.ai?.model ?? null };
}

/** The boot line: whether AI marking is on and against what. */
export function describeAiMarking(config: Readonly<Config>): { fields: Record<string, unknown>; message: string } {
  const ai = config.ai;
  if (!ai) {
    return { fields: { aiMarking: 'off' }, message: 'AI marking is off: ASSAY_AI_BASE_URL is not set, so AI-marked items go to reviewers' };
  }
  return {
    fields: {
      aiMarking: 'on',
      baseUrl: ai.baseUrl,
      model: ai.model,
      apiKey: ai.apiKey ? 'set' : 'none',
      timeoutMs: ai.timeoutMs,
      concurrency: ai.concurrency,
      dailyBudget: ai.dailyBudget,
    },
    message: `AI marking is on: model ${ai.model} at ${ai.baseUrl}`,
  };
}
