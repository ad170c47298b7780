import type { Clock } from '#packages/core/clock.js';
import { fold } from '#packages/core/decider.js';
import { newId } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { handleCommand, step, type AnyStep, type HandleResult, type ConflictPolicy } from '#packages/eventstore/command-handler.js';
import { balanceOf, type Ledger, type LedgerAction, type LedgerCommand, type LedgerState } from '#packages/ledger/decider.js';
import { balanceStream, type BalanceRef, type LedgerEntryEvent } from '#packages/ledger/entry.js';
import { MERCHANT_ACCOUNTS, type MerchantAccount } from './events.js';
import type { Environment } from '#packages/core/owner.js';

/** The whole ledger command for one balance: a family's action (its postings.ts) with its balance, time and entry ids. */
export function ledgerCommand(clock: Clock, balance: BalanceRef, action: LedgerAction): LedgerCommand {
  // Only the balance's three fields: a caller passing a richer object (a payout) must not override the action's.
  const { merchantId, environment, currency } = balance;
  return { ...action, merchantId, environment, currency, at: clock.now(), newEntryId: () => newId('txn') };
}

/** What posting on a balance takes from the kernel: the ledger the system opened and the clock. */
export interface LedgerDeps {
  ledger: Ledger;
  clock: Clock;
}

/** A ledger command as a step of a change that commits it with the fact that causes it. */
export function ledgerStep({ ledger, clock }: LedgerDeps, balance: BalanceRef, action: LedgerAction, metadata: EventMetadata): AnyStep {
  return step({ streamId: balanceStream(balance.merchantId, balance.environment, balance.currency), decider: ledger.decider, command: ledgerCommand(clock, balance, action), metadata });
}

/**
 * Runs a ledger command on a merchant's balance stream. Postings are idempotent per source, so
 * internal ones decide again on a lost race; a balance hold is `contended` (refused on the merits, never 409).
 */
export function runLedger(
  { ledger, store, clock }: LedgerDeps & { store: EventStore },
  merchantId: string,
  environment: Environment,
  currency: string,
  action: LedgerAction,
  metadata: EventMetadata,
  onConflict: ConflictPolicy = 'internal',
): Promise<HandleResult<LedgerState, LedgerEntryEvent>> {
  const command = ledgerCommand(clock, { merchantId, environment, currency }, action);
  return handleCommand(store, balanceStream(merchantId, environment, currency), ledger.decider, command, metadata, { onConflict });
}

/**
 * One balance as its stream stood at `at`: the entries posted up to then (inclusive), folded as the
 * ledger folds them. Read from the log itself, not a read model: what auditors compare the API with.
 */
export async function balanceFromLog({ ledger, store }: { ledger: Ledger; store: EventStore }, balance: BalanceRef, at: Date): Promise<Record<MerchantAccount, number>> {
  const events = (await store.readStream(balanceStream(balance.merchantId, balance.environment, balance.currency))) as unknown as LedgerEntryEvent[];
  const state = fold(
    ledger.decider,
    events.filter((e) => new Date(e.data.postedAt) <= at),
  );
  return Object.fromEntries(MERCHANT_ACCOUNTS.map((account) => [account, balanceOf(state, account)])) as Record<MerchantAccount, number>;
}
