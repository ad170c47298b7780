import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import { handleCommand, type HandleResult } from '../decider.js';
import type { Environment } from '../merchant/events.js';
import { ledgerDecider, type LedgerCommand, type LedgerState } from './decider.js';
import { balanceStream, type LedgerEvent } from './events.js';

/** The variable part of a ledger command; context (merchant, currency, time, ids) is filled in here. */
export type LedgerAction = LedgerCommand extends infer C ? (C extends { type: string } ? Omit<C, 'merchantId' | 'environment' | 'currency' | 'at' | 'newEntryId'> : never) : never;

/**
 * Runs a ledger command on a merchant's balance stream. `retries` > 0 for internal postings
 * (idempotent per source); 0 for client requests, which get 409 on a lost race.
 */
export function runLedger(
  store: EventStore,
  clock: Clock,
  merchantId: string,
  environment: Environment,
  currency: string,
  action: LedgerAction,
  metadata: EventMetadata,
  retries = 10,
): Promise<HandleResult<LedgerState, LedgerEvent>> {
  const command = { ...action, merchantId, environment, currency, at: clock.now(), newEntryId: () => newId('txn') } as LedgerCommand;
  return handleCommand(store, balanceStream(merchantId, environment, currency), ledgerDecider, command, metadata, { retriesOnConflict: retries });
}
