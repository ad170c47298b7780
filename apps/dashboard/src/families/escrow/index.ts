import type { DashboardFamily } from '../../shell/family.js';
import { Escrow } from './Escrow.js';
import { EscrowContract } from './EscrowContract.js';

/** Escrow contracts and a contract's page. */
export const escrow: DashboardFamily = {
  pages: { escrow: Escrow, escrowContract: EscrowContract },
  navigation: [{ group: 'money', page: 'escrow', label: 'nav.escrow', under: ['escrowContract'] }],
};
