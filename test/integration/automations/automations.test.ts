/**
 * /api/v1/automations through HTTP, the definitions side: the three catalogs, create (the signing
 * secret shown once), list, retrieve, update (versions), enable, disable, delete, validate, and
 * every refusal with its code and param; separation of merchants and environments; Idempotency-Key
 * replays. Runs and what steps do are in automation-runs.test.ts.
 */
import t from '#tap';
import { PUBLIC_EVENTS } from '#packages/families/index.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { AUTOMATIONS, createAutomation, onPaymentIntent, publishedTemplate } from '../../support/automations.js';
import { startService } from '../../support/system.js';

const svc = await startService(t);
const smsStep = (templateId: string) => ({ id: 'notify', action: 'send_sms', params: { templateId, to: '+221771234567' } });

t.test('catalogs: every event type and schedules; the seven actions; the runtime limits', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const triggers = await svc.request('GET', `${AUTOMATIONS}/catalog/triggers`, { key });
  assertOk(t, triggers);
  const eventTypes = triggers.body.data.filter((x: { type: string }) => x.type === 'event').map((x: { eventType: string }) => x.eventType);
  t.same(
    eventTypes,
    PUBLIC_EVENTS.types.map((e) => e.type),
    'every public event type',
  );
  t.ok(
    triggers.body.data.some((x: { type: string }) => x.type === 'schedule'),
    'and schedules',
  );
  const actions = await svc.request('GET', `${AUTOMATIONS}/catalog/actions`, { key });
  assertOk(t, actions);
  t.same(
    actions.body.data.map((a: { action: string }) => a.action),
    ['send_email', 'send_sms', 'http_request', 'create_invoice', 'create_payout', 'tag_customer', 'send_invoice_reminders', 'wait'],
  );
  t.ok(
    actions.body.data.every((a: { params: { type: string } }) => a.params.type === 'object'),
    'each with the JSON Schema of its params',
  );
  const caps = await svc.request('GET', `${AUTOMATIONS}/catalog/runtime-capabilities`, { key });
  assertOk(t, caps);
  t.match(caps.body, { object: 'automation_runtime_capabilities', limits: { maxSteps: 20, runsPerMinute: 60, failuresBeforeDisable: 5 }, email: { delivery: 'outbox' }, http: { httpAllowed: true, redirectsFollowed: false } });
  const live = await svc.request('GET', `${AUTOMATIONS}/catalog/runtime-capabilities`, { key: (await svc.merchant()).api_keys.live });
  t.match(live.body.http, { httpAllowed: false, privateAddressesAllowed: false }, 'live: https only, never private addresses');
});

t.test('create, retrieve, list, update (versions), enable, disable, delete', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const res = await svc.request('POST', AUTOMATIONS, { key, body: { name: 'Tell the customer', description: 'SMS on every payment', ...onPaymentIntent([smsStep(sms)]) } });
  assertOk(t, res);
  t.match(res.body, {
    id: /^auto_/,
    object: 'automation',
    name: 'Tell the customer',
    status: 'enabled',
    disabledReason: null,
    version: 1,
    trigger: { type: 'event', eventType: 'payment_intent.created' },
    livemode: false,
    secret: /^whsec_/,
  });
  t.equal(res.body.secretLast4, res.body.secret.slice(-4));
  const id = res.body.id;
  const got = await svc.request('GET', `${AUTOMATIONS}/${id}`, { key });
  assertOk(t, got);
  t.notOk('secret' in got.body, 'the secret is shown once');
  const second = await createAutomation(svc, key, { ...onPaymentIntent([smsStep(sms)]), enabled: false });
  t.equal(second.status, 'disabled', 'enabled: false creates it disabled');
  const list = await svc.request('GET', AUTOMATIONS, { key });
  t.same(
    list.body.data.map((a: { id: string }) => a.id),
    [second.id, id],
    'newest first',
  );
  const enabledOnly = await svc.request('GET', `${AUTOMATIONS}?status=enabled`, { key });
  t.same(
    enabledOnly.body.data.map((a: { id: string }) => a.id),
    [id],
  );

  const patched = await svc.request('PATCH', `${AUTOMATIONS}/${id}`, { key, body: { name: 'Renamed', steps: [smsStep(sms), { id: 'later', action: 'wait', params: { seconds: 60 } }] } });
  assertOk(t, patched);
  t.match(patched.body, { name: 'Renamed', version: 2, description: 'SMS on every payment' });
  t.equal(patched.body.steps.length, 2);
  const versions = await svc.request('GET', `${AUTOMATIONS}/${id}/versions`, { key });
  assertOk(t, versions);
  t.same(
    versions.body.data.map((v: { version: number; current: boolean; name: string }) => [v.version, v.current, v.name]),
    [
      [2, true, 'Renamed'],
      [1, false, 'Tell the customer'],
    ],
  );
  const onlyDisable = await svc.request('PATCH', `${AUTOMATIONS}/${id}`, { key, body: { enabled: false } });
  t.match(onlyDisable.body, { status: 'disabled', version: 2 }, 'enabled alone adds no version');

  const enabled = await svc.request('POST', `${AUTOMATIONS}/${id}/enable`, { key });
  t.match(enabled.body, { status: 'enabled', disabledReason: null });
  const disabled = await svc.request('POST', `${AUTOMATIONS}/${id}/disable`, { key });
  t.match(disabled.body, { status: 'disabled', disabledReason: 'merchant' });
  const again = await svc.request('POST', `${AUTOMATIONS}/${id}/disable`, { key });
  assertOk(t, again, 200);
  const del = await svc.request('DELETE', `${AUTOMATIONS}/${id}`, { key });
  t.same(del.body, { id, object: 'automation', deleted: true });
  assertError(t, await svc.request('GET', `${AUTOMATIONS}/${id}`, { key }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', `${AUTOMATIONS}/${id}/enable`, { key }), 'IKW-RES-001', 'id');
});

t.test('parallel updates of different fields: none is silently undone (each kept, or a 409 to retry)', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const created = await svc.request('POST', AUTOMATIONS, { key, body: { name: 'Before', description: 'before', ...onPaymentIntent([smsStep(sms)]) } });
  assertOk(t, created);
  const changes = Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? { name: `Name ${i}` } : { description: `Description ${i}` }));
  const answers = await Promise.all(changes.map((body) => svc.request('PATCH', `${AUTOMATIONS}/${created.body.id}`, { key, body })));
  for (const a of answers) if (a.status !== 200) assertError(t, a, 'IKW-RES-003');
  const kept = answers.filter((a) => a.status === 200).length;
  t.ok(kept >= 1, `${kept} of 6 applied`);
  const versions = (await svc.request('GET', `${AUTOMATIONS}/${created.body.id}/versions`, { key })).body.data as { version: number; name: string; description: string }[];
  t.equal(versions.length, 1 + kept, 'one version per applied update');
  // Each version is the one before it with exactly its own change: nothing another update set is lost.
  const ordered = [...versions].sort((x, y) => x.version - y.version);
  for (let i = 1; i < ordered.length; i++) {
    const [before, after] = [ordered[i - 1]!, ordered[i]!];
    const changed = [before.name !== after.name, before.description !== after.description].filter(Boolean).length;
    t.equal(changed, 1, `version ${after.version} changes one field over version ${before.version}`);
  }
});

t.test('refusals: the schema (with the field at fault), step ids, cron, time zone, templates, URLs', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const email = await publishedTemplate(svc, key, 'email');
  const post = (body: Record<string, unknown>) => svc.request('POST', AUTOMATIONS, { key, body: { name: 'x', ...body } });
  assertError(t, await post({ trigger: { type: 'event', eventType: 'no.such_event' }, steps: [smsStep(sms)] }), 'IKW-VAL-001', 'trigger.eventType');
  assertError(t, await post({ trigger: { type: 'event' }, steps: [smsStep(sms)] }), 'IKW-VAL-001', 'trigger.eventType');
  assertError(t, await post(onPaymentIntent([])), 'IKW-VAL-001', 'steps');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'launch_rocket', params: {} }])), 'IKW-VAL-001', 'steps.0.action');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'wait', params: { seconds: 0 } }])), 'IKW-VAL-001', 'steps.0.params.seconds');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'wait', params: { seconds: 8 * 86_400 } }])), 'IKW-VAL-001', 'steps.0.params.seconds');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'http_request', params: {} }])), 'IKW-VAL-001', 'steps.0.params.url');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'send_sms', params: { templateId: sms, to: '+1', extra: 1 } }])), 'IKW-VAL-002', 'steps.0.params.extra');
  assertError(t, await post(onPaymentIntent(Array.from({ length: 21 }, (_, i) => ({ id: `s${i}`, action: 'wait', params: { seconds: 1 } })))), 'IKW-VAL-001', 'steps');
  assertError(t, await post(onPaymentIntent([smsStep(sms), smsStep(sms)])), 'IKW-ATM-001', 'steps.1.id');
  assertError(t, await post({ trigger: { type: 'schedule', cron: '61 * * * *' }, steps: [smsStep(sms)] }), 'IKW-ATM-002', 'trigger.cron');
  assertError(t, await post({ trigger: { type: 'schedule', cron: '* * * *  *  * *' }, steps: [smsStep(sms)] }), 'IKW-ATM-002', 'trigger.cron');
  assertError(t, await post({ trigger: { type: 'schedule', cron: '0 9 * * *', timezone: 'Mars/Olympus' }, steps: [smsStep(sms)] }), 'IKW-ATM-002', 'trigger.timezone');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'send_email', params: { templateId: 'tpl_nope', to: 'a@example.com' } }])), 'IKW-ATM-003', 'steps.0.params.templateId');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'send_email', params: { templateId: sms, to: 'a@example.com' } }])), 'IKW-ATM-003', 'steps.0.params.templateId');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'send_sms', params: { templateId: email, to: '+221771234567' } }])), 'IKW-ATM-003', 'steps.0.params.templateId');
  const otherTemplate = await publishedTemplate(svc, (await svc.sandboxMerchant()).key, 'sms');
  assertError(t, await post(onPaymentIntent([smsStep(otherTemplate)])), 'IKW-ATM-003', 'steps.0.params.templateId');
  assertError(t, await post(onPaymentIntent([{ id: 'a', action: 'http_request', params: { url: 'ftp://example.com/x' } }])), 'IKW-WHK-001', 'steps.0.params.url');
  const live = await svc.merchant();
  const liveSms = await publishedTemplate(svc, live.api_keys.live, 'sms');
  const livePost = (steps: unknown[]) => svc.request('POST', AUTOMATIONS, { key: live.api_keys.live, body: { name: 'x', ...onPaymentIntent(steps) } });
  assertError(t, await livePost([{ id: 'a', action: 'http_request', params: { url: 'http://example.com/x' } }]), 'IKW-WHK-001', 'steps.0.params.url');
  assertError(t, await livePost([{ id: 'a', action: 'http_request', params: { url: 'https://10.0.0.1/x' } }]), 'IKW-WHK-001', 'steps.0.params.url');
  assertError(t, await livePost([{ id: 'a', action: 'http_request', params: { url: 'https://0x7f.1/x' } }]), 'IKW-WHK-001', 'steps.0.params.url');
  assertOk(t, await livePost([smsStep(liveSms), { id: 'call', action: 'http_request', params: { url: 'https://hooks.example.com/{{ event.type }}' } }]));
  const list = await svc.request('GET', AUTOMATIONS, { key });
  t.equal(list.body.data.length, 0, 'nothing refused was created');
});

t.test('every problem of a definition at once: validate, create and update list them all, in order, each at its param', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const problemsOf = (res: { body: { errors?: { code: string; param?: string; index?: number }[] } }) => (res.body.errors ?? []).map((e) => [e.code, e.param, 'index' in e]);

  // The checks beyond the schema: a schedule, a template, step ids and a URL.
  const wrong = {
    name: 'Many mistakes',
    trigger: { type: 'schedule', cron: '0 25 * * *', timezone: 'Mars/Olympus' },
    steps: [{ id: 'mail', action: 'send_email', params: { templateId: sms, to: 'a@example.com' } }, smsStep(sms), smsStep(sms), { id: 'call', action: 'http_request', params: { url: 'ftp://example.com/x' } }],
  };
  const expected = [
    ['IKW-ATM-002', 'trigger.cron', false],
    ['IKW-ATM-002', 'trigger.timezone', false],
    ['IKW-ATM-003', 'steps.0.params.templateId', false],
    ['IKW-ATM-001', 'steps.2.id', false],
    ['IKW-WHK-001', 'steps.3.params.url', false],
  ];
  for (const path of [`${AUTOMATIONS}/validate`, AUTOMATIONS]) {
    const res = await svc.request('POST', path, { key, body: wrong });
    assertError(t, res, 'IKW-ATM-002', 'trigger.cron');
    t.same(problemsOf(res), expected, `${path}: all five, the trigger's first, then each step's in turn`);
    t.equal(res.body.message, res.body.errors[0].message, 'the first problem is the answer itself, for a client that reads one');
    t.match(res.body.errors, [{ message: /^trigger\.cron: / }, { message: /Mars\/Olympus/ }, { message: /is an sms template; send_email needs an email template/ }, { message: "Step id 'notify' is used twice" }, {}]);
  }
  const headers = { 'idempotency-key': 'many-mistakes' };
  const first = await svc.request('POST', AUTOMATIONS, { key, body: wrong, headers });
  t.equal((await svc.request('POST', AUTOMATIONS, { key, body: wrong, headers })).text, first.text, 'an Idempotency-Key replay: the same answer');

  // The schema: every field that does not match, wherever it is.
  const badShape = {
    name: 'Bad shape',
    trigger: { type: 'event' },
    steps: [
      { id: 'Wait', action: 'wait', params: { seconds: 0 } },
      { id: 'call', action: 'http_request', params: {} },
      { id: 'sms', action: 'send_sms', params: { templateId: sms, to: '+1', extra: 1 } },
    ],
  };
  const shape = await svc.request('POST', `${AUTOMATIONS}/validate`, { key, body: badShape });
  assertError(t, shape, 'IKW-VAL-001', 'trigger.eventType');
  t.same(
    problemsOf(shape),
    [
      ['IKW-VAL-001', 'trigger.eventType', false],
      ['IKW-VAL-001', 'steps.0.id', false],
      ['IKW-VAL-001', 'steps.0.params.seconds', false],
      ['IKW-VAL-001', 'steps.1.params.url', false],
      ['IKW-VAL-002', 'steps.2.params.extra', false],
    ],
    'each problem of the schema, in the order of the body',
  );
  t.match(shape.body.errors[2].message, /steps\.0\.params\.seconds must be >= 1/);
  // Alternatives (an amount is a number or a template) are one problem, not one per alternative.
  const payout = (id: string) => ({ id, action: 'create_payout', params: { amount: 0, currency: 'xof', payoutMethodId: '5f0c3f0e-8a4b-4c1e-9a51-6a1b2c3d4e5f' } });
  const amount = await svc.request('POST', AUTOMATIONS, { key, body: { name: 'x', ...onPaymentIntent([payout('pay'), { id: 'wait', action: 'wait', params: { seconds: -1 } }, payout('again')]) } });
  t.same(
    problemsOf(amount),
    [
      ['IKW-VAL-001', 'steps.0.params.amount', false],
      ['IKW-VAL-001', 'steps.1.params.seconds', false],
      ['IKW-VAL-001', 'steps.2.params.amount', false],
    ],
    'each step its own problem, though one schema checks them all',
  );

  // Both kinds in one answer: the checks beyond the schema look at every part the schema accepted.
  const mixed = await svc.request('POST', `${AUTOMATIONS}/validate`, {
    key,
    body: {
      name: 'Mixed',
      trigger: { type: 'schedule', cron: '0 25 * * *' },
      steps: [
        { id: 'call', action: 'http_request', params: {} },
        smsStep(sms),
        smsStep(sms),
        { id: 'mail', action: 'send_email', params: { templateId: 'tpl_nope', to: 'a@example.com' } },
        { id: 'pause', action: 'wait', params: { seconds: 0 } },
      ],
    },
  });
  assertError(t, mixed, 'IKW-ATM-002', 'trigger.cron');
  t.same(
    problemsOf(mixed),
    [
      ['IKW-ATM-002', 'trigger.cron', false],
      ['IKW-VAL-001', 'steps.0.params.url', false],
      ['IKW-ATM-001', 'steps.2.id', false],
      ['IKW-ATM-003', 'steps.3.params.templateId', false],
      ['IKW-VAL-001', 'steps.4.params.seconds', false],
    ],
    "the schema's problems and the others, together in the definition's order",
  );
  const many = await svc.request('POST', AUTOMATIONS, { key, body: { name: 'x', ...onPaymentIntent(Array.from({ length: 150 }, (_, i) => ({ id: `s${i}`, action: 'wait', params: { seconds: 0 } }))) } });
  assertError(t, many, 'IKW-VAL-001', 'steps');
  t.equal(many.body.errors.length, 100, 'at most 100 problems in one answer');
  t.same(
    many.body.errors.slice(0, 2).map((e: { param: string }) => e.param),
    ['steps', 'steps.0.params.seconds'],
    'too many steps first, then each step',
  );
  // Steps past the twentieth are not looked up one by one: 30 steps, all with the same id.
  const tooMany = await svc.request('POST', AUTOMATIONS, { key, body: { name: 'x', ...onPaymentIntent(Array.from({ length: 30 }, () => smsStep(sms))) } });
  t.same(problemsOf(tooMany), [['IKW-VAL-001', 'steps', false], ...Array.from({ length: 19 }, (_, i) => ['IKW-ATM-001', `steps.${i + 1}.id`, false])], 'the step ids of the first twenty only');

  // One problem: the same answer as ever, and errors holds it too.
  const one = await svc.request('POST', AUTOMATIONS, { key, body: { name: 'x', ...onPaymentIntent([smsStep(sms), smsStep(sms)]) } });
  assertError(t, one, 'IKW-ATM-001', 'steps.1.id');
  t.same(problemsOf(one), [['IKW-ATM-001', 'steps.1.id', false]]);

  // An update is checked the same way, and changes nothing when refused.
  const created = await createAutomation(svc, key, onPaymentIntent([smsStep(sms)]));
  const patch = await svc.request('PATCH', `${AUTOMATIONS}/${created.id}`, { key, body: { trigger: { type: 'schedule', cron: '0 9 * * * * *' }, steps: [smsStep(sms), smsStep(sms)] } });
  assertError(t, patch, 'IKW-ATM-002', 'trigger.cron');
  t.same(problemsOf(patch), [
    ['IKW-ATM-002', 'trigger.cron', false],
    ['IKW-ATM-001', 'steps.1.id', false],
  ]);
  const patchMixed = await svc.request('PATCH', `${AUTOMATIONS}/${created.id}`, { key, body: { steps: [smsStep(sms), smsStep(sms), { id: 'pause', action: 'wait', params: { seconds: 0 } }] } });
  t.same(
    problemsOf(patchMixed),
    [
      ['IKW-ATM-001', 'steps.1.id', false],
      ['IKW-VAL-001', 'steps.2.params.seconds', false],
    ],
    'an update: both kinds together too, over its current definition',
  );
  const theirs = await svc.request('PATCH', `${AUTOMATIONS}/${created.id}`, { key: (await svc.sandboxMerchant()).key, body: { steps: [smsStep(sms), smsStep(sms), { id: 'pause', action: 'wait', params: { seconds: 0 } }] } });
  t.same(problemsOf(theirs), [['IKW-VAL-001', 'steps.2.params.seconds', false]], "another merchant's automation: only what the body itself shows, nothing of the automation");
  t.equal((await svc.request('GET', `${AUTOMATIONS}/${created.id}`, { key })).body.version, 1, 'no new version');
  t.same(
    (await svc.request('GET', AUTOMATIONS, { key })).body.data.map((a: { id: string }) => a.id),
    [created.id],
    'nothing refused was created',
  );

  // An update that changes no part of the definition is not a check of the stored one: its template
  // gone, a bad `enabled` is the only problem (as update() itself would check nothing else).
  t.equal((await svc.request('DELETE', `/api/template-engine/templates/${sms}`, { key })).status, 200);
  const badEnabled = await svc.request('PATCH', `${AUTOMATIONS}/${created.id}`, { key, body: { enabled: 'yes' } });
  assertError(t, badEnabled, 'IKW-VAL-001', 'enabled');
  t.same(problemsOf(badEnabled), [['IKW-VAL-001', 'enabled', false]], "the body's problem alone");
});

t.test('validate checks a definition without saving it, and tells a schedule’s next runs', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const res = await svc.request('POST', `${AUTOMATIONS}/validate`, { key, body: { name: 'Monday report', trigger: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Africa/Dakar' }, steps: [smsStep(sms)] } });
  assertOk(t, res);
  t.equal(res.body.valid, true);
  t.same(res.body.nextRuns, ['2026-01-05T09:00:00.000Z', '2026-01-12T09:00:00.000Z', '2026-01-19T09:00:00.000Z'], 'Mondays at 9:00 in Dakar (UTC+0)');
  assertError(t, await svc.request('POST', `${AUTOMATIONS}/validate`, { key, body: { name: 'x', trigger: { type: 'schedule', cron: '0 25 * * *' }, steps: [smsStep(sms)] } }), 'IKW-ATM-002', 'trigger.cron');
  const list = await svc.request('GET', AUTOMATIONS, { key });
  t.equal(list.body.data.length, 0, 'nothing saved');
});

t.test("another merchant's or environment's automation is a 404 on every route", async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant('Other');
  const sms = await publishedTemplate(svc, key, 'sms');
  const a = await createAutomation(svc, key, onPaymentIntent([smsStep(sms)]));
  const test = await svc.request('POST', `${AUTOMATIONS}/${a.id}/test`, { key, body: {} });
  const runId = test.body.id;
  const routes: [string, string, unknown?][] = [
    ['GET', `${AUTOMATIONS}/${a.id}`],
    ['PATCH', `${AUTOMATIONS}/${a.id}`, { name: 'x' }],
    ['DELETE', `${AUTOMATIONS}/${a.id}`],
    ['POST', `${AUTOMATIONS}/${a.id}/enable`],
    ['POST', `${AUTOMATIONS}/${a.id}/disable`],
    ['POST', `${AUTOMATIONS}/${a.id}/test`, {}],
    ['GET', `${AUTOMATIONS}/${a.id}/versions`],
    ['GET', `${AUTOMATIONS}/${a.id}/runs`],
    ['GET', `${AUTOMATIONS}/${a.id}/runs/${runId}`],
    ['POST', `${AUTOMATIONS}/${a.id}/runs/${runId}/cancel`],
  ];
  for (const [method, path, body] of routes) {
    assertError(t, await svc.request(method, path, { key: other.key, ...(body ? { body } : {}) }), 'IKW-RES-001');
    assertError(t, await svc.request(method, path, { key: merchant.api_keys.live, ...(body ? { body } : {}) }), 'IKW-RES-001');
  }
  await svc.system.drain();
  const logs = await svc.request('GET', `${AUTOMATIONS}/logs`, { key: other.key });
  t.same(logs.body.data, [], "the other merchant's logs are empty");
  const mine = await svc.request('GET', `${AUTOMATIONS}/logs`, { key });
  t.equal(mine.body.data.length, 1, 'the owner sees the test run’s step');
  t.same(await svc.request('GET', AUTOMATIONS, { key: other.key }).then((r) => r.body.data), []);
});

t.test('Idempotency-Key: a replayed create is one automation and the same answer', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const headers = { 'idempotency-key': 'automation-1' };
  const body = { name: 'Once', ...onPaymentIntent([smsStep(sms)]) };
  const first = await svc.request('POST', AUTOMATIONS, { key, body, headers });
  const replay = await svc.request('POST', AUTOMATIONS, { key, body, headers });
  assertOk(t, replay);
  t.equal(replay.text, first.text, 'byte for byte, the secret included');
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  assertError(t, await svc.request('POST', AUTOMATIONS, { key, body: { ...body, name: 'Other' }, headers }), 'IKW-IDM-002');
  const list = await svc.request('GET', AUTOMATIONS, { key });
  t.equal(list.body.data.length, 1);
  const h2 = { 'idempotency-key': 'disable-1' };
  const d1 = await svc.request('POST', `${AUTOMATIONS}/${first.body.id}/disable`, { key, headers: h2 });
  const d2 = await svc.request('POST', `${AUTOMATIONS}/${first.body.id}/disable`, { key, headers: h2 });
  t.equal(d2.text, d1.text);
  t.equal(d2.headers.get('idempotent-replayed'), 'true');
});

t.test('scopes: a read-only key reads the catalogs and cannot create', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const reader = await svc.apiKey(merchant.id, ['automations.read']);
  assertOk(t, await svc.request('GET', `${AUTOMATIONS}/catalog/actions`, { key: reader.secret }));
  assertError(t, await svc.request('POST', AUTOMATIONS, { key: reader.secret, body: { name: 'x', ...onPaymentIntent([smsStep(sms)]) } }), 'IKW-AUT-004');
});

t.test('scopes: saving a definition needs the scopes of its trigger and steps, as a test run needs those of the steps it runs', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const payout = { id: 'pay', action: 'create_payout', params: { amount: 1_000, currency: 'XOF', destination: { type: 'mobile_money', country: 'SN', operator: 'orange', msisdn: '+221771234567' } } };
  const wait = { id: 'pause', action: 'wait', params: { seconds: 60 } };
  const hourly = { type: 'schedule', cron: '0 * * * *' };
  const create = (k: string, body: Record<string, unknown>) => svc.request('POST', AUTOMATIONS, { key: k, body: { name: 'Scoped', ...body } });
  const automationsOnly = (await svc.apiKey(merchant.id, ['automations.write'])).secret;

  const noPayouts = await create(automationsOnly, { trigger: hourly, steps: [wait, payout] });
  assertError(t, noPayouts, 'IKW-AUT-004', 'steps.1.action');
  t.match(noPayouts.body.message, /payouts\.write/);
  assertError(t, await create(automationsOnly, { trigger: hourly, steps: [smsStep(sms)] }), 'IKW-AUT-004', 'steps.0.action');
  assertError(t, await create(automationsOnly, { trigger: hourly, steps: [{ id: 'call', action: 'http_request', params: { url: 'https://hooks.example.com/x' } }] }), 'IKW-AUT-004', 'steps.0.action');
  assertError(t, await create(automationsOnly, { trigger: hourly, steps: [{ id: 'tag', action: 'tag_customer', params: { customer: 'a@example.com', tag: 'vip' } }] }), 'IKW-AUT-004', 'steps.0.action');
  const listening = await create(automationsOnly, onPaymentIntent([wait]));
  assertError(t, listening, 'IKW-AUT-004', 'trigger.eventType');
  t.match(listening.body.message, /payment_intents\.read/, 'an event trigger needs the read scope of its event, as a webhook endpoint does');
  t.same((await svc.request('GET', AUTOMATIONS, { key })).body.data, [], 'nothing refused was saved');

  const payer = (await svc.apiKey(merchant.id, ['automations.write', 'payouts.write'])).secret;
  const made = await create(payer, { trigger: hourly, steps: [wait, payout] });
  assertOk(t, made);

  // An update makes a version of the whole definition: it needs every step's scope, not only the changes'.
  const renamed = await svc.request('PATCH', `${AUTOMATIONS}/${made.body.id}`, { key: automationsOnly, body: { name: 'Mine now' } });
  assertError(t, renamed, 'IKW-AUT-004', 'steps.1.action');
  t.match((await svc.request('GET', `${AUTOMATIONS}/${made.body.id}`, { key })).body, { name: 'Scoped', version: 1 });
  assertOk(t, await svc.request('PATCH', `${AUTOMATIONS}/${made.body.id}`, { key: automationsOnly, body: { enabled: false } }), 200);

  // A test run performs sends, calls and tags for real, with the caller's sample data: the caller needs their scopes.
  const notifying = await createAutomation(svc, key, { trigger: hourly, steps: [smsStep(sms)] });
  assertError(t, await svc.request('POST', `${AUTOMATIONS}/${notifying.id}/test`, { key: automationsOnly, body: {} }), 'IKW-AUT-004', 'steps.0.action');
  const paying = await createAutomation(svc, key, { trigger: hourly, steps: [payout] });
  assertOk(t, await svc.request('POST', `${AUTOMATIONS}/${paying.id}/test`, { key: automationsOnly, body: {} }), 202);
});
