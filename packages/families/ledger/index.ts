import { ledgerSettlement } from '../../processes/ledger-settlement.js';
import { defineFamily } from '../family.js';

/** The balances' ledger (docs/ledger.md): commands run by the families that move money; its own job settles pending funds. */
export const ledger = defineFamily({
  name: 'ledger',
  needs: [],
  processes: [ledgerSettlement],
  build: () => ({}),
});
