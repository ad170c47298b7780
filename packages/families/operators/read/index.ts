import type { ReadSide } from '#packages/read-models/read-side.js';
import { operatorSessionsProjection, operatorsProjection } from './operators.js';

/** The platform's operators: the team, and the sessions the HTTP edge checks. */
export const operatorsReadSide: ReadSide = {
  family: 'operators',
  readModels: [operatorsProjection, operatorSessionsProjection],
};

// The queries other code reads this family by.
export { type OperatorRow, findOperator, listOperators, operatorSessionCredentials } from './operators.js';
export { type MerchantSummary, type MerchantSearch, searchMerchants } from './merchants.js';
