import t from '#tap';
import { canReadEventType, readScopeOfEventType } from '#packages/families/accounts/organization/event-scopes.js';
import { ROLE_SCOPES } from '#packages/families/accounts/organization/events.js';
import { PUBLIC_EVENTS } from '#packages/families/index.js';

t.test('every public event type has a read scope', async (t) => {
  for (const { type } of PUBLIC_EVENTS.types) t.ok(readScopeOfEventType(type)?.endsWith('.read'), type);
});

t.test('a family filter has its family’s scope; * and unknown families have none', async (t) => {
  t.equal(readScopeOfEventType('payout.*'), 'payouts.read');
  t.equal(readScopeOfEventType('payout_batch.completed'), 'payouts.read');
  t.equal(readScopeOfEventType('invoice.paid'), 'billing.read');
  t.equal(readScopeOfEventType('*'), undefined);
  t.equal(readScopeOfEventType('api_key.created'), undefined);
  t.equal(readScopeOfEventType('constructor.created'), undefined, 'no inherited property is a family');
});

t.test('what a set of scopes may read', async (t) => {
  t.ok(canReadEventType(['payouts.read'], 'payout.paid'));
  t.ok(canReadEventType(['payouts.write'], 'payout_batch.failed'), 'write holds read');
  t.notOk(canReadEventType(['payouts.read'], 'invoice.paid'));
  t.notOk(canReadEventType(['webhooks.write'], 'payment_intent.succeeded'));
  for (const { type } of PUBLIC_EVENTS.types) t.ok(canReadEventType(ROLE_SCOPES.viewer, type), `*.read reads ${type}`);
  t.notOk(canReadEventType(['*'], 'user.created'), 'an internal family is never readable');
});
