/** The automation Decider on its own, and the definition checks. */
import t from '#tap';
import { automationDecider, type AutomationCommand } from '#packages/families/automations/decider.js';
import { definitionProblems, inDefinitionOrder, nextTick, type Definition } from '#packages/families/automations/definition.js';
import type { AutomationCreated } from '#packages/families/automations/events.js';
import { spec } from '../../support/decider-spec.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const stranger = { merchantId: 'acct_2', environment: 'sandbox' as const };

const definition: Definition = { name: 'A', description: null, trigger: { type: 'event', eventType: 'payout.paid' }, steps: [{ id: 'wait', action: 'wait', params: { seconds: 5 } }] };
const automation: AutomationCreated = {
  id: 'auto_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  version: { version: 1, definition, createdAt: at.toISOString() },
  enabled: true,
  secret: { sealed: 'x', last4: 'abcd', createdAt: at.toISOString() },
  createdAt: at.toISOString(),
};
const automations = spec(automationDecider);
const cmd = (c: Record<string, unknown>) => ({ owner, at, ...c }) as AutomationCommand;

t.test('automations: versions, enable and disable idempotent, the runner disables once, delete', async (t) => {
  const created = automations.history({ type: 'create', automation });
  automations.given(created).when({ type: 'create', automation }).thenThrows(t, 'IKW-RES-003');
  const v2 = automations
    .given(created)
    .when(cmd({ type: 'update', definition: { ...definition, name: 'B' }, basedOn: 1, credential: { type: 'user', id: 'usr_1' } }))
    .thenMatch(t, [{ type: 'automation.updated', data: { version: { version: 2, definition: { name: 'B' } } } }]);
  automations
    .given(created, v2)
    .when(cmd({ type: 'update', definition: { ...definition, name: 'C' }, basedOn: 1 }))
    .thenThrows(t, 'IKW-RES-003');
  const key = { type: 'api_key', id: 'key_1' };
  const keyed = automations
    .given(created)
    .when(cmd({ type: 'update', definition, basedOn: 1, credential: key }))
    .thenMatch(t, [{ type: 'automation.updated', data: { version: { version: 2, definition, credential: key } } }], 'the same definition saved by another credential is a version of its own');
  automations
    .given(created, keyed)
    .when(cmd({ type: 'update', definition, basedOn: 2, credential: key }))
    .thenNothing(t, 'an unchanged definition by the same credential adds no version');
  automations
    .given(created)
    .when(cmd({ type: 'enable' }))
    .thenNothing(t, 'already enabled');
  const disabled = automations
    .given(created)
    .when(cmd({ type: 'disable' }))
    .thenMatch(t, [{ type: 'automation.disabled', data: { reason: 'merchant' } }]);
  automations
    .given(created, disabled)
    .when(cmd({ type: 'disable' }))
    .thenNothing(t);
  automations
    .given(created, disabled)
    .when(cmd({ type: 'disable_for_failures', failures: 5, lastError: 'x' }))
    .thenNothing(t, 'the runner only disables an enabled automation: one notice');
  automations
    .given(created)
    .when(cmd({ type: 'disable_for_failures', failures: 5, lastError: 'HTTP 500' }))
    .thenMatch(t, [{ type: 'automation.disabled', data: { reason: 'failures', failures: 5, lastError: 'HTTP 500' } }]);
  automations
    .given(created, disabled)
    .when(cmd({ type: 'enable' }))
    .thenState((s) => t.same([s.enabled, s.disabledReason], [true, null]));
  automations.given(created).when({ type: 'enable', owner: stranger, at }).thenThrows(t, { code: 'IKW-RES-001', param: 'automationId' });
  const deleted = automations
    .given(created)
    .when(cmd({ type: 'delete' }))
    .thenMatch(t, [{ type: 'automation.deleted' }]);
  automations
    .given(created, deleted)
    .when(cmd({ type: 'enable' }))
    .thenThrows(t, 'IKW-RES-001');
});

t.test('definition checks: step ids, cron fields, time zones, every problem in order; the next tick', async (t) => {
  const problems = (d: Definition) => definitionProblems(d, at).map((p) => [p.code, p.param]);
  t.same(problems({ ...definition, steps: [...definition.steps, ...definition.steps] }), [['IKW-ATM-001', 'steps.1.id']]);
  t.same(problems({ ...definition, trigger: { type: 'schedule', cron: '* * * *' } }), [['IKW-ATM-002', 'trigger.cron']]);
  t.same(problems({ ...definition, trigger: { type: 'schedule', cron: '0 9 * * *', timezone: 'Nowhere/Land' } }), [['IKW-ATM-002', 'trigger.timezone']]);
  t.same(problems({ ...definition, trigger: { type: 'schedule', cron: '0 9 * * *', timezone: 'Africa/Lagos' } }), []);
  t.same(
    problems({ ...definition, trigger: { type: 'schedule', cron: '0 99 * * *', timezone: 'Nowhere/Land' }, steps: [...definition.steps, ...definition.steps, ...definition.steps] }),
    [
      ['IKW-ATM-002', 'trigger.cron'],
      ['IKW-ATM-002', 'trigger.timezone'],
      ['IKW-ATM-001', 'steps.1.id'],
      ['IKW-ATM-001', 'steps.2.id'],
    ],
    'every problem, the trigger first, then the steps in turn',
  );
  t.same(
    inDefinitionOrder([
      { code: 'IKW-ATM-001', message: '', param: 'steps.10.id' },
      { code: 'IKW-ATM-003', message: '', param: 'steps.2.params.templateId' },
      { code: 'IKW-ATM-001', message: '', param: 'steps.2.id' },
      { code: 'IKW-ATM-002', message: '', param: 'trigger.cron' },
    ]).map((p) => p.param),
    ['trigger.cron', 'steps.2.params.templateId', 'steps.2.id', 'steps.10.id'],
    'by step number (10 after 2), stable within a step',
  );
  t.equal(nextTick({ cron: '0 9 * * *', timezone: 'Africa/Lagos' }, at).toISOString(), '2026-01-01T08:00:00.000Z', '9:00 in Lagos is 8:00 UTC');
  t.equal(nextTick({ cron: '*/15 * * * *' }, new Date('2026-01-01T10:07:00Z')).toISOString(), '2026-01-01T10:15:00.000Z');
});
