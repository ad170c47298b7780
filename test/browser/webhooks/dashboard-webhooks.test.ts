/**
 * The dashboard's webhook pages in Chromium, against a real receiver on loopback: an endpoint
 * created in the page (its secret shown once, and it signs what the receiver gets); a sandbox
 * payment intent's event answered 503, seen with its answer; replayed and retried, both seen
 * succeeding; a test event sent from the page, signed and marked as a test, its delivery followed to
 * success; the secret rotated (a new one shown once); disabled, after which a replay is refused;
 * deleted once confirmed;
 * the API's refusals of a bad URL and an unknown event type; another merchant's endpoint is not
 * found; live has its own endpoints; axe-core and 320 px.
 */
import t from '#tap';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { createEndpoint, createIntentEvent, MINUTE, Receiver, settle, verifies, verify, WEBHOOK_TIMEOUT_MS } from '../../support/webhooks.js';

const { svc, signedIn } = await startDashboard(t, {
  webhookTimeoutMs: WEBHOOK_TIMEOUT_MS,
  clockStart: Date.now(),
  env: { WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1', WEBHOOK_RETRY_SCHEDULE: '1m' },
});

t.test('webhooks: create, a failed attempt with its answer, replay and retry, a test event, rotate, disable, delete', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Kola hooks');
  const refused = refusals(page);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  await navigate(page, 'Webhooks');
  await page.getByText('No webhook endpoint in this environment yet.').waitFor();

  const form = page.getByRole('form', { name: 'New webhook endpoint' });
  await form.getByLabel('URL').fill('ftp://hooks.example.com/in');
  await form.getByRole('button', { name: 'Create the endpoint' }).click();
  t.match(await page.getByRole('alert').textContent(), /http/i, "the API's refusal of a URL that is not http(s)");

  const receiver = await Receiver.start(t, svc);
  receiver.behaviour = { kind: 'answer', status: 503, body: 'busy, try later' };
  await form.getByLabel('URL').fill(receiver.url);
  await form.getByLabel('Event types').fill('payment_intent.created, parcel.delivered');
  await form.getByRole('button', { name: 'Create the endpoint' }).click();
  t.match(await page.getByRole('alert').filter({ hasText: 'parcel.delivered' }).textContent(), /Unknown event type/, 'an unknown event type refused');

  await form.getByLabel('Event types').fill('payment_intent.created');
  await form.getByRole('button', { name: 'Create the endpoint' }).click();
  const shown = page.getByRole('status').filter({ hasText: 'shown only once' });
  await shown.waitFor();
  const secret = (await shown.locator('code').textContent())!;
  t.match(secret, /^whsec_/, 'the signing secret, shown once');
  const listed = (await svc.request('GET', '/api/v1/webhook-endpoints', { key })).body.data;
  t.match(listed, [{ url: receiver.url, enabled_events: ['payment_intent.created'], enabled: true, secret_last4: secret.slice(-4) }], 'the API holds it');
  const endpointId: string = listed[0].id;
  await shown.getByRole('button', { name: 'Done' }).click();
  t.equal(await page.getByText(secret).count(), 0, 'gone once done');
  const row = page.getByRole('row', { name: new RegExp(receiver.url) });
  t.match(await row.textContent(), /payment_intent\.created.*Enabled/);
  t.same(await accessibilityProblems(page), [], 'webhooks: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same(await overflowAt(page, 1280), [], 'nor at 1280 px');
  await screenshot(page, 'webhooks');

  // A sandbox payment intent: its event reaches the receiver, which answers 503.
  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 1);
  t.ok(verifies(secret, receiver.requests[0]!), 'signed with the secret the page showed');

  await row.getByRole('link', { name: receiver.url }).click();
  await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor();
  t.equal(page.url(), `${svc.baseUrl}/dashboard/webhooks/${endpointId}`);
  const deliveries = page.getByRole('region', { name: 'Deliveries' });
  const first = deliveries.getByRole('row', { name: /payment_intent\.created/ });
  t.match(await first.textContent(), /Retrying/, 'the delivery, retrying');
  t.equal(await first.getByRole('cell', { name: '1', exact: true }).count(), 1, 'after one attempt');
  await first.getByRole('button', { name: /^Attempts of payment_intent\.created/ }).click();
  const attempts = page.getByRole('list', { name: 'Attempts' });
  await attempts.waitFor();
  t.match(await attempts.textContent(), /Attempt1.*Answer status503.*ErrorHTTP 503.*Answerbusy, try later/, "the failed attempt with the endpoint's answer");

  // Replay: a new delivery of the same event, answered 200 this time.
  receiver.behaviour = { kind: 'answer', status: 200, body: '{"received":true}' };
  await page.getByRole('button', { name: 'Replay this event' }).click();
  await page.getByRole('status').filter({ hasText: 'Sent again as a new delivery.' }).waitFor();
  await settle(svc);
  t.equal(receiver.count, 2);
  t.equal(receiver.requests[1]!.headers['webhook-id'], receiver.requests[0]!.headers['webhook-id'], 'the same event');
  await page.reload();
  await deliveries.getByRole('row', { name: /Succeeded/ }).waitFor();
  t.equal(await deliveries.getByRole('row', { name: /payment_intent\.created/ }).count(), 2, 'the replay is a second delivery');
  await deliveries
    .getByRole('button', { name: /^Attempts of payment_intent\.created/ })
    .first()
    .click();
  t.match(await attempts.textContent(), /Answer status200.*\{"received":true\}/, "the replay's attempt and answer");

  // The retry a minute later succeeds too: the first delivery then has two attempts.
  svc.clock.advance(MINUTE);
  await settle(svc);
  t.equal(receiver.count, 3);
  await page.reload();
  await page.getByLabel('Show').selectOption('succeeded');
  const twice = deliveries.getByRole('row').filter({ has: page.getByRole('cell', { name: '2', exact: true }) });
  await twice.waitFor();
  t.match(await twice.textContent(), /payment_intent\.created.*Succeeded/, 'the first delivery succeeded at its second attempt');
  await twice.getByRole('button').click();
  await attempts.getByRole('listitem').nth(1).waitFor();
  t.match(await attempts.textContent(), /Attempt1.*503.*busy, try later.*Attempt2.*Answer status200/, 'both attempts, each with its answer');
  await page.getByLabel('Show').selectOption('retrying');
  await page.getByText('No delivery to this endpoint yet.').waitFor();
  await page.getByLabel('Show').selectOption('');
  await deliveries
    .getByRole('button', { name: /^Attempts of payment_intent\.created/ })
    .first()
    .click();
  await attempts.waitFor();
  t.same(await accessibilityProblems(page), [], 'webhook endpoint: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same(await overflowAt(page, 1280), [], 'nor at 1280 px');
  await screenshot(page, 'webhook-endpoint');

  // A test event from the page: the endpoint's one type; delivered, signed, marked as a test, and its
  // delivery seen going from pending to succeeded without a reload.
  const sendTest = page.getByRole('form', { name: 'Send a test event' });
  t.same(await sendTest.getByLabel('Test event type').locator('option').allTextContents(), ['payment_intent.created'], 'a choice of the endpoint’s types');
  await sendTest.getByRole('button', { name: 'Send the test event' }).click();
  await page.getByRole('status').filter({ hasText: 'Test event payment_intent.created sent' }).waitFor();
  const testRow = deliveries.getByRole('row', { name: /payment_intent\.created \(test\)/ });
  await testRow.waitFor();
  await settle(svc);
  t.equal(receiver.count, 4, 'the receiver got the test event');
  const testEvent = verify(secret, receiver.requests[3]!) as unknown as { id: string; test: boolean; type: string };
  t.match(testEvent, { id: /^evt_test_/, test: true, type: 'payment_intent.created' }, 'signed with the secret, marked as a test');
  await deliveries.getByRole('row', { name: /payment_intent\.created \(test\).*Succeeded/ }).waitFor();
  t.pass('its delivery shown succeeded, the page following it');
  await testRow.getByRole('button', { name: /^Attempts of payment_intent\.created/ }).click();
  const opened = page.getByRole('region', { name: 'Delivery of payment_intent.created' }).filter({ hasText: testEvent.id });
  await opened.waitFor();
  t.match(await opened.textContent(), /Attempt1.*Answer status200/, 'its event and attempt');

  // Rotate: a new secret, shown once; the API's last four follow it.
  await page.getByRole('button', { name: 'Rotate the secret' }).click();
  const rotated = page.getByRole('status').filter({ hasText: 'previous secret keeps signing for 24 hours' });
  await rotated.waitFor();
  const secret2 = (await rotated.locator('code').textContent())!;
  t.match(secret2, /^whsec_/);
  t.not(secret2, secret, 'a new secret');
  const held = (await svc.request('GET', `/api/v1/webhook-endpoints/${endpointId}`, { key })).body;
  t.match(held, { secret_last4: secret2.slice(-4), has_previous_secret: true }, 'the API signs with it now, the previous one for a while');

  // Disable: the API holds it; a replay to a disabled endpoint is refused, in the page.
  await page.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('button', { name: 'Enable' }).waitFor();
  t.equal((await svc.request('GET', `/api/v1/webhook-endpoints/${endpointId}`, { key })).body.enabled, false, 'disabled in the API');
  await page.getByRole('button', { name: 'Replay this event' }).click();
  t.match(await page.getByRole('alert').textContent(), /disabled/, 'a replay to a disabled endpoint is refused');
  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 4, 'a disabled endpoint gets nothing');
  t.equal(await page.getByRole('form', { name: 'Send a test event' }).count(), 0, 'and is offered no test event');

  await page.getByRole('link', { name: 'All webhook endpoints' }).click();
  t.match(await page.getByRole('row', { name: new RegExp(receiver.url) }).textContent(), /Disabled/);

  // Delete, asked to confirm: dismissed, nothing happens; accepted, the API no longer finds it.
  const deleteButton = page.getByRole('button', { name: `Delete ${receiver.url}` });
  page.once('dialog', (d) => void d.dismiss());
  await deleteButton.click();
  t.equal((await svc.request('GET', `/api/v1/webhook-endpoints/${endpointId}`, { key })).status, 200, 'kept when the confirmation is dismissed');
  page.once('dialog', (d) => {
    t.match(d.message(), /Nothing will be sent to it again/);
    void d.accept();
  });
  await deleteButton.click();
  await page.getByText('No webhook endpoint in this environment yet.').waitFor();
  t.equal((await svc.request('GET', `/api/v1/webhook-endpoints/${endpointId}`, { key })).status, 404, 'deleted in the API');
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No webhook endpoint in this environment yet.').waitFor();
  t.pass('live has its own endpoints');

  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['400 POST /api/v1/webhook-endpoints', '400 POST /api/v1/webhook-endpoints', '409 POST /api/v1/webhook-replays'], 'no refused request but the bad URL, the unknown type and the replay to a disabled endpoint');
});

t.test("another merchant's endpoint is not found", async (t) => {
  const other = await svc.merchant('Other hooks');
  const theirs = await createEndpoint(svc, other.api_keys.sandbox, 'https://hooks.example.com/theirs');
  const { page, problems } = await signedIn(t, 'Nosy hooks');
  const refused = refusals(page);
  await page.goto(`${svc.baseUrl}/dashboard/webhooks/${theirs.id}`);
  await page.getByText('There is no such webhook endpoint in this environment.').waitFor();
  t.equal(await page.getByText('hooks.example.com').count(), 0, 'nothing of theirs shown');
  t.same(await accessibilityProblems(page), [], 'not found: no serious or critical axe violation');
  t.same(scriptProblems(problems), []);
  t.same(refused, [`404 GET /api/v1/webhook-endpoints/${theirs.id}`]);
});

t.test("an endpoint deleted from its own page; the list's address afterwards", async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Tidy hooks');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const e = await createEndpoint(svc, key, 'https://hooks.example.com/tidy');
  await page.goto(`${svc.baseUrl}/dashboard/webhooks/${e.id}`);
  await page.getByText('https://hooks.example.com/tidy').waitFor();
  await page.getByText('No delivery to this endpoint yet.').waitFor();
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No webhook endpoint in this environment yet.').waitFor();
  t.equal(page.url(), `${svc.baseUrl}/dashboard/webhooks`, 'back on the list');
  t.equal((await svc.request('GET', `/api/v1/webhook-endpoints/${e.id}`, { key })).status, 404, 'deleted in the API');
  t.same(scriptProblems(problems), []);
});
