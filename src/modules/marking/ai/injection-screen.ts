/**
 * The injection screen, pure: does a student's answer try to talk to the
 * marker instead of answering the question? A flagged answer always goes to a
 * reviewer, whatever the model replies (the model is still asked, so the
 * reviewer gets a suggestion to weigh).
 *
 * It is a heuristic, not a proof: it looks for the usual shapes of prompt
 * injection in English (addressing the marker, asking for marks, role and
 * chat-template tags, imitating the reply format) and for text a human
 * reviewer would not see (zero-width and bidi control characters, long
 * whitespace runs that push text out of view, encoded blobs). A false alarm
 * costs a reviewer's minute; a miss is caught by the model's own instruction
 * to treat the answer as data, and in `decide` mode by the confidence bar.
 */
export const INJECTION_FLAG = 'possible_injection';

export interface ScreenResult {
  flagged: boolean;
  /** Short reasons, for the reviewer and the log (never the matched text itself). */
  reasons: string[];
}

// Zero-width and invisible formatting characters, the soft hyphen, Unicode tag characters.
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]|[\u{E0000}-\u{E007F}]/u;
// Bidirectional embeddings, overrides and isolates: text that reads differently from how it is stored.
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
// Control characters other than tab, newline and carriage return.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// 40 or more spaces/tabs in a row followed by more text, or 12+ line breaks in a row: text pushed out of view.
const WHITESPACE_RUN = /[ \t\u00A0\u3000]{40,}\S|(?:\r?\n[ \t]*){12,}\S/;
// An unbroken run of base64 (or base64url) long enough to carry a sentence.
const BASE64_BLOB = /[A-Za-z0-9+/_-]{80,}={0,2}/;

interface Rule {
  reason: string;
  pattern: RegExp;
}

/** Matched against the answer folded to lower case, NFKC, with invisible characters removed and whitespace collapsed. */
const PHRASES: Rule[] = [
  {
    reason: 'asks to ignore instructions',
    pattern:
      /\b(ignore|disregard|forget|override|bypass|skip)\b[^.!?\n]{0,40}\b(previous|prior|above|earlier|preceding|all|any|your|system|marking|grading)\b[^.!?\n]{0,20}\b(instruction|instructions|prompt|prompts|rules?|directions?|guidelines?|rubric|criteria)\b/,
  },
  {
    reason: 'asks for marks',
    pattern:
      /\b(give|award|grant|assign)\b[^.!?\n]{0,30}\b(full|maximum|max|top|perfect|highest|all( the)?|100 ?%|10 ?\/ ?10)\b[^.!?\n]{0,12}\b(marks?|points?|score|credit|grade|rating)\b/,
  },
  {
    reason: 'asks for marks',
    pattern:
      /\b(i|this (answer|essay|response)|the student)\b[^.!?\n]{0,20}\b(deserves?|should (get|receive|be given))\b[^.!?\n]{0,12}\b(full|maximum|max|top|perfect|highest|all( the)?)\b[^.!?\n]{0,12}\b(marks?|points?|score|credit)\b/,
  },
  {
    reason: 'addresses the marker',
    pattern: /\b(as|dear|attention|note to|hey|hello|hi)\b,?\s+((the|an|a|my|our)\s+)?(grader|marker|examiner|evaluator|assessor|ai|a\.i\.|llm|language model|chatbot|gpt|claude|llama)\b/,
  },
  {
    reason: 'addresses the marker',
    pattern: /\b(you are|you're|act as|pretend to be|roleplay as)\s+(now\s+)?((the|an|a|my|our)\s+)?([a-z-]+\s+){0,2}(grader|marker|examiner|evaluator|assessor|ai|llm|language model|chatbot)\b/,
  },
  { reason: 'gives new instructions', pattern: /\b(new|updated|real|actual|hidden|secret)\s+(instructions?|system prompt|prompt|directive)\b/ },
  { reason: 'gives new instructions', pattern: /\b(system prompt|jailbreak|developer mode|dan mode|prompt injection)\b/ },
  { reason: 'imitates a chat role', pattern: /(^|\n)\s*(#{1,6}\s*)?(system|assistant|user|developer|instruction|instructions)\s*:/ },
  {
    reason: 'contains role or template tags',
    pattern: /<\|[a-z_]{2,20}\|>|<\/?(system|assistant|user|instructions?|im_start|im_end|s)>|\[\/?inst\]|<<\/?sys>>|\[(system|assistant)\]/,
  },
  { reason: 'imitates the reply format', pattern: /"(confidence|criteria|points|rationale|flags)"\s*:/ },
  { reason: 'imitates the answer markers', pattern: /\b(begin|end) student answer\b/ },
];

/** Lower case, compatibility forms folded (full-width letters, ligatures), invisible characters dropped, spaces collapsed. */
export function foldForScreening(text: string): string {
  return text
    .normalize('NFKC')
    .replace(new RegExp(INVISIBLE.source, 'gu'), '')
    .replace(new RegExp(BIDI.source, 'g'), '')
    .toLowerCase()
    .replace(/[ \t\u00A0\u3000]+/g, ' ');
}

export function screenAnswer(text: string): ScreenResult {
  const reasons = new Set<string>();
  if (INVISIBLE.test(text)) reasons.add('contains invisible characters');
  if (BIDI.test(text)) reasons.add('contains bidirectional control characters');
  if (CONTROL.test(text)) reasons.add('contains control characters');
  if (WHITESPACE_RUN.test(text)) reasons.add('hides text after a long run of whitespace');
  if (BASE64_BLOB.test(text)) reasons.add('contains an encoded blob');
  const folded = foldForScreening(text);
  for (const rule of PHRASES) if (rule.pattern.test(folded)) reasons.add(rule.reason);
  return { flagged: reasons.size > 0, reasons: [...reasons] };
}
