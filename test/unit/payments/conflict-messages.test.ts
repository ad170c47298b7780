/**
 * A 409 IKW-RES-003 says what conflicted: another writer appending to an intent's stream between
 * a command's read and its append makes the append fail, and the answer names the command (the
 * confirm lock, an update, a cancel). Runs over the EventStoreDB adapter on its in-memory emulator.
 * A command decides first on the state its process remembers and, when that append conflicts,
 * reads the stream and decides once more (command-handler.ts): the other writer here wins both.
 */
import t from '#tap';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { EsdbEventStore } from '#packages/eventstore/esdb/store.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { paymentIntentConflictMessage } from '#packages/families/payments/payment-intent/commands.js';
import { CONFIRMATION_IN_PROGRESS, type PaymentIntentCommand, type PaymentIntentState } from '#packages/families/payments/payment-intent/decider.js';
import { paymentIntentAggregate } from '#packages/families/payments/payment-intent/render.js';
import type { Fact } from '#packages/core/decider.js';
import { paymentIntentStream, type Created, type PaymentIntentEvent } from '#packages/families/payments/payment-intent/events.js';
import { EsdbEmulator } from '../../support/esdb-emulator.js';

const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const at = new Date('2026-01-01T00:00:00Z');

/** The store, except that the next two appends each meet an event another writer appended first. */
function racedStore(inner: EventStore): EventStore & { raceNext(): void } {
  let races = 0;
  return Object.assign(Object.create(inner) as EventStore, {
    raceNext: () => void (races = 2),
    async append(...args: Parameters<EventStore['append']>) {
      if (races > 0) {
        races--;
        const [streamId] = args;
        await inner.append(streamId, [{ type: 'payment_intent.updated', data: {} }], { expectedVersion: await inner.streamVersion(streamId) });
      }
      return inner.append(...args);
    },
  });
}

class Intents extends CommandService<PaymentIntentCommand, PaymentIntentState, Fact<PaymentIntentEvent>> {
  constructor(store: EventStore) {
    super(store, paymentIntentStream, paymentIntentAggregate, { conflictMessageOf: paymentIntentConflictMessage });
  }
  exec(command: PaymentIntentCommand) {
    return this.run('pi_1', command, {});
  }
}

t.test('each command that can meet another writer says what conflicted', async (t) => {
  const inner = new EsdbEventStore(new EsdbEmulator(), { retryDelayMs: 1 });
  t.teardown(() => inner.close());
  const store = racedStore(inner);
  const intents = new Intents(store);
  const intent: Created = {
    id: 'pi_1',
    merchantId: 'acct_1',
    environment: 'sandbox',
    amount: 1_000,
    currency: 'xof',
    transactionCountry: 'SN',
    payerCountry: null,
    railCountry: null,
    description: null,
    metadata: {},
    customer: null,
    createdAt: at.toISOString(),
  };
  await intents.exec({ type: 'create', intent, at });

  const cases: [PaymentIntentCommand, string][] = [
    [{ type: 'update', owner, at, description: 'x' }, 'Another request changed this payment intent while it was being updated; retry the update'],
    [{ type: 'cancel', owner, at, reason: null }, 'Another request changed this payment intent while it was being canceled; retry the cancel'],
    [{ type: 'start_confirmation', owner, at, operationId: 'op_1', returnUrl: 'https://shop.test', paymentMethod: { type: 'card', token: 'tok_visa' } }, CONFIRMATION_IN_PROGRESS],
  ];
  for (const [command, message] of cases) {
    store.raceNext();
    await t.rejects(intents.exec(command), { code: 'IKW-RES-003', message }, `${command.type}: ${message}`);
  }
});
