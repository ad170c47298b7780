/** The template and automation Deciders on their own, the customer's tag command, and the definition checks. */
import t from 'tap';
import { Refusal } from '../../packages/core/refusal.js';
import { automationDecider, type AutomationCommand } from '../../packages/families/automations/decider.js';
import { definitionProblems, inDefinitionOrder, nextTick, type Definition } from '../../packages/families/automations/definition.js';
import type { AutomationCreated } from '../../packages/families/automations/events.js';
import type { CustomerCommand } from '../../packages/families/billing/customer/decider.js';
import { customerAggregate, toCustomerObject } from '../../packages/families/billing/customer/render.js';
import { templateDecider, type TemplateCommand } from '../../packages/families/templates/decider.js';
import type { TemplateCreated, TemplateVersion } from '../../packages/families/templates/events.js';
import { checkData, checkVersion } from '../../packages/families/templates/render.js';
import { spec } from '../support/decider-spec.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const stranger = { merchantId: 'acct_2', environment: 'sandbox' as const };

const version: TemplateVersion = { version: 1, variables: { type: 'object', properties: { name: { type: 'string' } } }, locales: { en: { text: 'Hi {{ name }}' } }, defaultLocale: 'en', sampleData: null, createdAt: at.toISOString() };
const template: TemplateCreated = { id: 'tpl_1', merchantId: 'acct_1', environment: 'sandbox', kind: 'sms', name: 'Hi', purpose: null, version, createdAt: at.toISOString() };
const templates = spec(templateDecider);
const createTemplate: TemplateCommand = { type: 'create', template, publish: false, at };
const content = { variables: version.variables, locales: { en: { text: 'Hello {{ name }}' } }, defaultLocale: 'en', sampleData: null };

t.test('templates: versions count up, publish picks one, delete ends everything', async (t) => {
  const created = templates.history(createTemplate);
  templates.given().when({ ...createTemplate, publish: true }).thenMatch(t, [{ type: 'template.created' }, { type: 'template.version_published', data: { version: 1 } }]);
  templates.given(created).when(createTemplate).thenThrows(t, 'IKW-RES-003');
  const v2 = templates.given(created).when({ type: 'update', owner, at, version: content, basedOn: 1, publish: false }).thenMatch(t, [{ type: 'template.version_added', data: { version: { version: 2 } } }]);
  templates.given(created, v2).when({ type: 'update', owner, at, version: content, basedOn: 1, publish: false }).thenThrows(t, 'IKW-RES-003');
  templates.given(created).when({ type: 'update', owner, at, name: 'Hi', basedOn: 1, publish: false }).thenNothing(t, 'the same name changes nothing');
  templates.given(created).when({ type: 'update', owner, at, name: 'New', version: content, basedOn: 1, publish: true }).thenMatch(t, [
    { type: 'template.renamed', data: { name: 'New' } },
    { type: 'template.version_added', data: { version: { version: 2 } } },
    { type: 'template.version_published', data: { version: 2 } },
  ]);
  const published = templates.given(created, v2).when({ type: 'publish', owner, at, version: 1 }).thenMatch(t, [{ type: 'template.version_published', data: { version: 1 } }]);
  templates.given(created, v2, published).when({ type: 'publish', owner, at, version: 1 }).thenNothing(t, 'publishing the published version');
  templates.given(created).when({ type: 'publish', owner, at, version: 3 }).thenThrows(t, { code: 'IKW-RES-001', param: 'version' });
  templates.given(created).when({ type: 'publish', owner: stranger, at, version: 1 }).thenThrows(t, { code: 'IKW-RES-001', param: 'templateId' });
  const deleted = templates.given(created).when({ type: 'delete', owner, at }).thenMatch(t, [{ type: 'template.deleted' }]);
  templates.given(created, deleted).when({ type: 'delete', owner, at }).thenThrows(t, 'IKW-RES-001');
  templates.given(created, deleted).when({ type: 'publish', owner, at, version: 1 }).thenThrows(t, 'IKW-RES-001');
});

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
  const v2 = automations.given(created).when(cmd({ type: 'update', definition: { ...definition, name: 'B' }, basedOn: 1, credential: { type: 'user', id: 'usr_1' } })).thenMatch(t, [{ type: 'automation.updated', data: { version: { version: 2, definition: { name: 'B' } } } }]);
  automations.given(created, v2).when(cmd({ type: 'update', definition: { ...definition, name: 'C' }, basedOn: 1 })).thenThrows(t, 'IKW-RES-003');
  const key = { type: 'api_key', id: 'key_1' };
  const keyed = automations.given(created).when(cmd({ type: 'update', definition, basedOn: 1, credential: key })).thenMatch(t, [{ type: 'automation.updated', data: { version: { version: 2, definition, credential: key } } }], 'the same definition saved by another credential is a version of its own');
  automations.given(created, keyed).when(cmd({ type: 'update', definition, basedOn: 2, credential: key })).thenNothing(t, 'an unchanged definition by the same credential adds no version');
  automations.given(created).when(cmd({ type: 'enable' })).thenNothing(t, 'already enabled');
  const disabled = automations.given(created).when(cmd({ type: 'disable' })).thenMatch(t, [{ type: 'automation.disabled', data: { reason: 'merchant' } }]);
  automations.given(created, disabled).when(cmd({ type: 'disable' })).thenNothing(t);
  automations.given(created, disabled).when(cmd({ type: 'disable_for_failures', failures: 5, lastError: 'x' })).thenNothing(t, 'the runner only disables an enabled automation: one notice');
  automations.given(created).when(cmd({ type: 'disable_for_failures', failures: 5, lastError: 'HTTP 500' })).thenMatch(t, [{ type: 'automation.disabled', data: { reason: 'failures', failures: 5, lastError: 'HTTP 500' } }]);
  automations.given(created, disabled).when(cmd({ type: 'enable' })).thenState((s) => t.same([s.enabled, s.disabledReason], [true, null]));
  automations.given(created).when({ type: 'enable', owner: stranger, at }).thenThrows(t, { code: 'IKW-RES-001', param: 'automationId' });
  const deleted = automations.given(created).when(cmd({ type: 'delete' })).thenMatch(t, [{ type: 'automation.deleted' }]);
  automations.given(created, deleted).when(cmd({ type: 'enable' })).thenThrows(t, 'IKW-RES-001');
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

t.test('template checks: declared variables, kind fields, data against the schema', async (t) => {
  const code = (f: () => void) => {
    try {
      f();
      return null;
    } catch (err) {
      return err instanceof Refusal ? [err.code, err.field] : String(err);
    }
  };
  t.same(code(() => checkVersion('sms', { ...version, locales: { en: { text: '{{ other }}' } } })), ['IKW-TPL-002', 'locales.en.text']);
  t.same(code(() => checkVersion('sms', { ...version, locales: { en: { text: '{% for x in name %}{{ x }}{% endfor %}' } } })), null, 'loop variables are not globals');
  t.same(code(() => checkVersion('email', version)), ['IKW-VAL-001', 'locales.en.subject']);
  t.same(code(() => checkVersion('receipt', { ...version, locales: { en: { title: 'T', text: 'x', html: '<p>' } } })), ['IKW-VAL-002', 'locales.en.html']);
  const typed = { variables: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 1 }, who: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } } } } };
  t.same(code(() => checkData(typed, {})), ['IKW-TPL-003', 'data.n']);
  t.same(code(() => checkData(typed, { n: 0 })), ['IKW-TPL-003', 'data.n']);
  t.same(code(() => checkData(typed, { n: 1, who: {} })), ['IKW-TPL-003', 'data.who.email']);
  t.same(code(() => checkData(typed, { n: 1, who: { email: 'nope' } })), ['IKW-TPL-003', 'data.who.email']);
  t.equal(code(() => checkData(typed, { n: 2, who: { email: 'a@example.com' } })), null);
});

t.test('customers: a tag joins metadata tags once, sorted', async (t) => {
  const customers = spec(customerAggregate);
  const created = customers.history({ type: 'create', customer: { id: 'cus_1', merchantId: 'acct_1', environment: 'sandbox', name: null, email: 'a@example.com', phone: null, currency: null, metadata: { plan: 'gold' }, createdAt: at.toISOString() } });
  const tag = (tag: string): CustomerCommand => ({ type: 'tag', owner, at, tag });
  const vip = customers.given(created).when(tag('vip')).thenMatch(t, [{ type: 'customer.updated', data: { metadata: { plan: 'gold', tags: 'vip' }, object: { metadata: { plan: 'gold', tags: 'vip' } } } }]);
  customers.given(created, vip).when(tag('vip')).thenNothing(t);
  customers.given(created, vip).when(tag('early')).thenState((s) => t.same(toCustomerObject(s).metadata, { plan: 'gold', tags: 'early,vip' }));
  customers.given(created).when({ type: 'tag', owner: stranger, at, tag: 'x' }).thenThrows(t, 'IKW-RES-001');
});
