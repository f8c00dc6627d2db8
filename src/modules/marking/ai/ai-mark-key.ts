/** One pending `marking.ai_mark` job per item: its unique key. */
export const aiMarkKey = (assignmentId: string, questionId: string) => `ai-mark:${assignmentId}:${questionId}`;

export const AI_OFF_REASON = 'AI marking is off (ASSAY_AI_BASE_URL is not set): a reviewer marks this item.';
