import type { Clock } from '../../core/clock.js';
import { fold } from '../../core/decider.js';
import { newId } from '../../core/ids.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import { handleCommand, step, type AnyStep, type HandleResult, type ConflictPolicy } from '../../eventstore/command-handler.js';
import { balanceOf, ledgerDecider, type LedgerCommand, type LedgerState } from './decider.js';
import { balanceStream, type BalanceRef, type LedgerEvent, type MerchantAccount } from './events.js';
import type { Environment } from '../../core/owner.js';

/** The variable part of a ledger command; context (merchant, currency, time, ids) is filled in here. */
export type LedgerAction = LedgerCommand extends infer C ? (C extends { type: string } ? Omit<C, 'merchantId' | 'environment' | 'currency' | 'at' | 'newEntryId'> : never) : never;

/** The whole ledger command for one balance: the action with its balance, time and entry ids. */
export function ledgerCommand(clock: Clock, balance: BalanceRef, action: LedgerAction): LedgerCommand {
  // Only the balance's three fields: a caller passing a richer object (a payout) must not override the action's.
  const { merchantId, environment, currency } = balance;
  return { ...action, merchantId, environment, currency, at: clock.now(), newEntryId: () => newId('txn') } as LedgerCommand;
}

/** A ledger command as a step of a change that commits it with the fact that causes it. */
export function ledgerStep(clock: Clock, balance: BalanceRef, action: LedgerAction, metadata: EventMetadata): AnyStep {
  return step({ streamId: balanceStream(balance.merchantId, balance.environment, balance.currency), decider: ledgerDecider, command: ledgerCommand(clock, balance, action), metadata });
}

/**
 * Runs a ledger command on a merchant's balance stream. Postings are idempotent per source, so
 * internal ones decide again on a lost race; a balance hold is `contended` (refused on the merits, never 409).
 */
export function runLedger(
  store: EventStore,
  clock: Clock,
  merchantId: string,
  environment: Environment,
  currency: string,
  action: LedgerAction,
  metadata: EventMetadata,
  onConflict: ConflictPolicy = 'internal',
): Promise<HandleResult<LedgerState, LedgerEvent>> {
  const command = ledgerCommand(clock, { merchantId, environment, currency }, action);
  return handleCommand(store, balanceStream(merchantId, environment, currency), ledgerDecider, command, metadata, { onConflict });
}

/**
 * One balance as its stream stood at `at`: the entries posted up to then (inclusive), folded as the
 * ledger folds them. Read from the log itself, not a read model: what auditors compare the API with.
 */
export async function balanceFromLog(store: EventStore, balance: BalanceRef, at: Date): Promise<Record<MerchantAccount, number>> {
  const events = (await store.readStream(balanceStream(balance.merchantId, balance.environment, balance.currency))) as unknown as LedgerEvent[];
  const state = fold(ledgerDecider, events.filter((e) => new Date(e.data.postedAt) <= at));
  return { available: balanceOf(state, 'available'), pending: balanceOf(state, 'pending'), reserved: balanceOf(state, 'reserved') };
}
