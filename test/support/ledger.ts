import { CHART, LEDGER_PARTS } from '#packages/families/index.js';
import { Ledger } from '#packages/ledger/decider.js';

/** The ledger the family list makes (what services/system.ts hands the kernel), for tests that fold or decide balances without a system. */
export const familiesLedger = new Ledger(CHART, LEDGER_PARTS);
