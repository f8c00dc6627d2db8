/**
 * The interface of the QTI response-processing interpreter (see index.ts),
 * and the plain-data tree compile.ts builds and evaluate.ts walks.
 *
 * Glossary: a *rule* is a statement of response processing (set an outcome,
 * a condition, exit); an *expression* computes a value; NULL is QTI's
 * missing value (an empty string or container is NULL too).
 */
export type QtiBaseType = 'identifier' | 'string' | 'integer' | 'float' | 'boolean' | 'point' | 'pair' | 'directedPair' | 'duration' | 'uri' | 'file';
export type QtiCardinality = 'single' | 'multiple' | 'ordered' | 'record';
/** One value: point = [x, y]; pair / directedPair = [id1, id2]; duration in seconds. */
export type QtiScalar = string | number | boolean | [number, number] | [string, string];
/** null is QTI's NULL; an array is a container (multiple / ordered). */
export type QtiData = QtiScalar | QtiScalar[] | null;

export interface QtiDeclaration {
  identifier: string;
  cardinality: QtiCardinality;
  baseType: QtiBaseType | null;
}

/** The part of an item that scores: its response and outcome declarations and its response processing, as XML text. */
export interface QtiScoringSource {
  /** The item's <qti-response-declaration>s and <qti-outcome-declaration>s (or QTI 2.x responseDeclaration / outcomeDeclaration), concatenated, as written in the item. */
  declarations: string;
  /** The item's <qti-response-processing> (or 2.x responseProcessing) element, as written; a template reference (`template=` / `template-location=` of the three standard templates) is expanded. */
  responseProcessing: string;
}

export interface CompiledQtiProcessing {
  responses: QtiDeclaration[];
  outcomes: QtiDeclaration[];
}

/** Thrown with a reason fit for an import report or a 400 detail ("uses the customOperator …", "nests conditions deeper than 200", "has more than 20,000 expressions"). */
export class QtiProcessingError extends Error {
  override name = 'QtiProcessingError';
}

/** The bounds compile and run enforce (docs/import-export.md "Response processing Assay runs"). */
export const QTI_PROCESSING_LIMITS = {
  /** Characters of the declarations plus the processing. */
  sourceChars: 1_000_000,
  /** Elements nested inside one another (rules and expressions), as the XML reader's own depth bound. */
  depth: 100,
  /** Expressions in one item's processing. */
  expressions: 20_000,
  /** Characters of one value, map key, pattern or identifier. */
  stringChars: 10_000,
  /** Values in one container (a response, a correct response, a mapping). */
  containerValues: 10_000,
  /** Evaluation steps of one run (an expression, a rule, a comparison inside a container). */
  steps: 1_000_000,
} as const;

export type Card = 'single' | 'multiple' | 'ordered';
/** A variable's declaration as compiled: its values already read by base type. */
export interface Variable {
  identifier: string;
  cardinality: Card;
  baseType: QtiBaseType | null;
  defaultValue: QtiData;
  correct: QtiData;
  mapping: Mapping | null;
  areaMapping: AreaMapping | null;
  lookup: LookupTable | null;
}

export interface Mapping {
  entries: Array<{ key: QtiScalar; value: number; caseSensitive: boolean }>;
  defaultValue: number;
  lowerBound: number | null;
  upperBound: number | null;
}

export type Shape = 'rect' | 'circle' | 'poly' | 'ellipse' | 'default';
export interface AreaMapping {
  entries: Array<{ shape: Shape; coords: number[]; value: number }>;
  defaultValue: number;
  lowerBound: number | null;
  upperBound: number | null;
}

export type LookupTable =
  | { kind: 'match'; entries: Array<{ source: number; target: QtiData }>; defaultValue: QtiData }
  | { kind: 'interpolation'; entries: Array<{ source: number; includeBoundary: boolean; target: QtiData }>; defaultValue: QtiData };

/** An expression's static type; null where it cannot be known (a NULL literal). */
export interface Typed {
  card: Card | null;
  base: QtiBaseType | null;
}

export type Expr = Typed &
  (
    | { op: 'baseValue'; value: QtiData }
    | { op: 'null' }
    | { op: 'variable' | 'default' | 'correct' | 'mapResponse' | 'mapResponsePoint'; id: string }
    | { op: 'equal'; args: Expr[]; mode: 'exact' | 'absolute' | 'relative'; tolerance: [number, number]; includeLower: boolean; includeUpper: boolean }
    | { op: 'equalRounded'; args: Expr[]; mode: 'significantFigures' | 'decimalPlaces'; figures: number }
    | { op: 'stringMatch'; args: Expr[]; caseSensitive: boolean; substring: boolean }
    | { op: 'patternMatch'; args: Expr[]; pattern: { test(text: string): boolean } }
    | { op: 'index'; args: Expr[]; n: number }
    | { op: NaryOp; args: Expr[] }
  );

export type NaryOp =
  | 'match' | 'member' | 'contains' | 'lt' | 'gt' | 'lte' | 'gte' | 'and' | 'or' | 'not' | 'isNull'
  | 'sum' | 'product' | 'subtract' | 'divide' | 'multiple' | 'ordered' | 'containerSize' | 'round' | 'truncate'
  | 'integerDivide' | 'integerModulus' | 'power' | 'min' | 'max';

export type Rule =
  | { rule: 'set'; id: string; expr: Expr }
  | { rule: 'lookup'; id: string; expr: Expr }
  | { rule: 'condition'; branches: Array<{ when: Expr | null; rules: Rule[] }> }
  | { rule: 'exit' };

export interface Program {
  variables: Map<string, Variable>;
  responseIds: Set<string>;
  rules: Rule[];
}
