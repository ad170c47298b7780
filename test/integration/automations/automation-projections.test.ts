/** read.automations with its versions: events in, rows out, on a fresh schema. */
import t from '#tap';
import { automationDecider, type AutomationCommand } from '#packages/families/automations/decider.js';
import type { Definition } from '#packages/families/automations/definition.js';
import { automationsProjection } from '#packages/families/automations/read/automations.js';
import { spec } from '../../support/decider-spec.js';
import { projectionSpec } from '../../support/projection-spec.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };

t.test('read.automations: the current definition and its trigger, enable and disable, versions, deletion', async (t) => {
  const definition: Definition = { name: 'A', description: null, trigger: { type: 'event', eventType: 'payout.paid' }, steps: [{ id: 'w', action: 'wait', params: { seconds: 1 } }] };
  const commands: AutomationCommand[] = [
    {
      type: 'create',
      automation: {
        id: 'auto_1',
        merchantId: 'acct_1',
        environment: 'sandbox',
        version: { version: 1, definition, createdAt: at.toISOString() },
        enabled: true,
        secret: { sealed: 's', last4: 'abcd', createdAt: at.toISOString() },
        createdAt: at.toISOString(),
      },
    },
    // Version 1 as saved before versions recorded their credential; version 2 records it.
    { type: 'update', owner, at, definition: { ...definition, trigger: { type: 'schedule', cron: '0 * * * *' } }, basedOn: 1, credential: { type: 'api_key', id: 'key_1' } },
    { type: 'disable_for_failures', owner, at, failures: 5, lastError: 'x' },
    { type: 'delete', owner, at },
  ];
  const events = spec(automationDecider).history(...commands);
  const p = await projectionSpec(t, automationsProjection);
  await p.given(events.slice(0, 1));
  await p.thenRows(t, 'read.automations', [{ id: 'auto_1', version: 1, trigger_event: 'payout.paid', enabled: true, disabled_reason: null, secret_last4: 'abcd' }]);
  await p.given(events.slice(1, 3));
  await p.thenRows(t, 'read.automations', [{ id: 'auto_1', version: 2, trigger_event: null, enabled: false, disabled_reason: 'failures', deleted: false }]);
  await p.thenRows(t, 'read.automation_versions', [
    { automation_id: 'auto_1', version: 1, credential: null },
    { automation_id: 'auto_1', version: 2, credential: { type: 'api_key', id: 'key_1' } },
  ]);
  await p.given(events.slice(3));
  await p.thenRows(t, 'read.automations', [{ id: 'auto_1', deleted: true, enabled: false }]);
});
