// The numeric type's parser (catalog/question-types/numeric), named here as before for marking's QTI responses.
export { parseNumericAnswer } from '../catalog/question-types/numeric/number-text.js';
