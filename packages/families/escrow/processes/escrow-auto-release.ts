import type { ContractRef } from '../commands.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** At a contract's `autoReleaseAtUtc`: what it holds is released to its default destination (docs/escrow.md). */
export const escrowAutoRelease = defineProcess<ContractRef>({
  job: { name: 'escrow.auto_release', key: (p) => `escrow-auto-release:${p.contractId}`, lane: lanes.escrowContract },
  handler:
    ({ escrowReleases }) =>
    (p) =>
      escrowReleases.autoRelease(p),
});
