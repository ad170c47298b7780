import type { ReadSide } from '#packages/read-models/read-side.js';
import { statementsProjection } from './statements.js';

/** Merchants' statements (docs/statements.md). */
export const statementsReadSide: ReadSide = {
  family: 'statements',
  readModels: [statementsProjection],
};

// The queries other code reads this family by.
export { findStatement, listStatements, STATEMENT_CSV_COLUMNS, statementRecords } from './statements.js';
