/**
 * The dashboard's automation pages in Chromium, against a real receiver on loopback: an automation
 * built in the page (a bad cron and an unknown time zone refused together, each in the API's words
 * at its own field; then a wait of 0 s; a schedule's next runs); created disabled, its secret shown once; a test run and its
 * result (the call made and signed with that secret, the wait skipped); enabled, a payment intent
 * made through the API starts a real run, seen with its log and canceled while it waits; edited
 * (a new version) and an earlier version restored; disabled, after which an event starts nothing;
 * the list's last run of each automation, from the list itself (no request per row); the step log
 * of every run filtered by action; another merchant's automation is not found; live
 * has its own list; deleted once confirmed; axe-core and 320 px on each page, the form in French too.
 */
import t from '#tap';
import { AUTOMATIONS, createAutomation, onPaymentIntent, runsOf } from '../../support/automations.js';
import { accessibilityProblems, navigate, overflowAt, refusals, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
import { createIntentEvent, Receiver, settle, verify, WEBHOOK_TIMEOUT_MS } from '../../support/webhooks.js';

const { svc, signedIn } = await startDashboard(t, { webhookTimeoutMs: WEBHOOK_TIMEOUT_MS, clockStart: Date.now(), env: { WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1' } });

t.test('automations: build, refuse, test, run, cancel, edit, disable, delete; another merchant, live', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Baobab flows');
  const refused = refusals(page);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const receiver = await Receiver.start(t, svc);
  await navigate(page, 'Automations');
  await page.getByText('No automation in this environment yet.').waitFor();
  await page.getByText('No step attempt to show.').waitFor();

  await page.getByRole('button', { name: 'New automation' }).click();
  const form = page.getByRole('form', { name: 'New automation' });
  await form.getByLabel('Name').fill('Tell the back office');
  await form.getByLabel('On a schedule').check();
  await form.getByLabel('Cron expression').fill('every monday');
  await form.getByLabel(/^Time zone/).fill('Mars/Olympus');
  await form.getByLabel(/^Action/).selectOption('http_request');
  await form.getByRole('button', { name: 'Add the step' }).click();
  await form.getByRole('textbox', { name: 'URL' }).fill(receiver.url);
  await form.getByLabel(/^Body/).fill('{"amount": "{{ event.data.amount }}", "run": "{{ run.id }}"}');
  await form.getByRole('button', { name: 'Check' }).click();
  const cron = form.getByLabel('Cron expression');
  const zone = form.getByLabel(/^Time zone/);
  await form.getByText('2 problems: each is said at its field.').waitFor();
  const [cronProblem, zoneProblem] = await form.getByRole('alert').all();
  t.equal(await form.getByRole('alert').count(), 2, 'both problems of the definition, from one answer');
  t.match(await cronProblem!.textContent(), /trigger\.cron must have five fields/, "a bad cron: the API's words");
  t.match(await zoneProblem!.textContent(), /unknown time zone 'Mars\/Olympus'/, 'an unknown time zone: the API’s words');
  for (const [field, problem, name] of [
    [cron, cronProblem!, 'cron'],
    [zone, zoneProblem!, 'time zone'],
  ] as const) {
    t.equal(await field.getAttribute('aria-invalid'), 'true', `the ${name} field is marked invalid`);
    t.match(await field.getAttribute('aria-describedby'), await problem.getAttribute('id'), `and described by its own problem`);
  }
  t.equal(await page.evaluate<string>("document.activeElement ? document.activeElement.id : ''"), await cron.getAttribute('id'), 'the first one has the focus');
  t.same(await accessibilityProblems(page), [], 'a refused form: no serious or critical axe violation');

  await cron.fill('0 9 * * 1');
  await zone.fill('Africa/Dakar');
  await form.getByRole('button', { name: 'Check' }).click();
  const valid = form.getByRole('status').filter({ hasText: 'No problem found.' });
  await valid.waitFor();
  t.equal(await valid.getByRole('listitem').count(), 3, "a schedule's next three runs");
  t.equal(await form.getByRole('alert').count(), 0, 'the problem is gone');

  // An event instead, and a wait after the call: 0 seconds is refused by create, at its field.
  await form.getByLabel('When an event happens').check();
  await form.getByLabel(/^Event/).selectOption('payment_intent.created');
  await form.getByLabel(/^Action/).selectOption('wait');
  await form.getByRole('button', { name: 'Add the step' }).click();
  const seconds = form.getByLabel('Seconds');
  await seconds.fill('0');
  await form.getByRole('button', { name: 'Create the automation' }).click();
  t.match(await form.getByRole('alert').textContent(), /steps\.1\.params\.seconds must be >= 1/, "a wait of 0 s: the API's words");
  t.equal(await seconds.getAttribute('aria-invalid'), 'true', 'at the field it names');
  t.same(refused, ['400 POST /api/v1/automations/validate', '400 POST /api/v1/automations'], 'refused twice, by the API');
  t.same(await overflowAt(page), [], 'the form: no horizontal scroll at 320 px');
  await screenshot(page, 'automation-new');
  refused.length = 0;

  await seconds.fill('3600');
  await form.getByRole('button', { name: 'Create the automation' }).click();
  const shown = page.getByRole('status').filter({ hasText: 'shown only this once' });
  await shown.waitFor();
  const secret = (await shown.locator('code').textContent())!;
  t.match(secret, /^whsec_/, 'the signing secret, shown once');
  const listed = (await svc.request('GET', AUTOMATIONS, { key })).body.data;
  t.match(
    listed,
    [
      {
        name: 'Tell the back office',
        status: 'disabled',
        version: 1,
        trigger: { type: 'event', eventType: 'payment_intent.created' },
        steps: [
          { id: 'http_request', action: 'http_request', params: { url: receiver.url, body: { amount: '{{ event.data.amount }}', run: '{{ run.id }}' } } },
          { id: 'wait', action: 'wait', params: { seconds: 3600 } },
        ],
      },
    ],
    'the API holds it, disabled until enabled',
  );
  const automationId: string = listed[0].id;
  await shown.getByRole('button', { name: 'Done' }).click();
  const automations = page.getByRole('region', { name: 'Automations of this environment' });
  const row = automations.getByRole('row', { name: /Tell the back office/ });
  await row.getByText('Never').waitFor();
  t.match(await row.textContent(), /Tell the back office.*payment_intent\.created.*Disabled.*Never/);

  // Its page: a test run with a sample event; the call is made (signed with the secret shown), the wait skipped.
  await row.getByRole('link', { name: 'Tell the back office' }).click();
  await page.getByRole('heading', { name: 'Tell the back office', level: 1 }).waitFor();
  t.equal(page.url(), `${svc.baseUrl}/dashboard/automations/${automationId}`);
  await page.getByLabel('Sample event data (JSON, optional)').fill('{"amount": 5000, "currency": "xof"}');
  await page.getByRole('button', { name: 'Run a test' }).click();
  const result = page.getByRole('region', { name: 'Result of the test run' });
  await result.waitFor();
  await settle(svc);
  await result.getByText('Succeeded', { exact: true }).first().waitFor();
  t.equal(receiver.count, 1, 'the test run called the URL');
  t.match(verify(secret, receiver.requests[0]!), { amount: '5000' }, 'with the sample event, signed with the secret the page showed');
  t.match(await result.getByRole('list', { name: 'Attempts of http_request' }).textContent(), /StatusSucceeded.*"status": 200/s, "the call's attempt and its answer");
  t.match(await result.getByRole('list', { name: 'Attempts of wait' }).textContent(), /StatusSkipped.*"wouldRun"/s, 'the wait skipped in a test');
  t.match(await result.textContent(), /Started byTest: payment_intent\.created/);

  // Enabled: a payment intent made through the API starts a real run, which calls and then waits.
  await page.getByRole('button', { name: 'Enable', exact: true }).click();
  await page.getByRole('button', { name: 'Disable', exact: true }).waitFor();
  t.match(await page.locator('dl.facts').first().textContent(), /StatusEnabled/);
  await createIntentEvent(svc, key, 7_500);
  await settle(svc);
  t.equal(receiver.count, 2, 'the event ran the automation');
  await page.reload();
  const runs = page.getByRole('region', { name: 'Runs' });
  const eventRun = runs.getByRole('row', { name: /Event: payment_intent\.created/ });
  t.match(await eventRun.textContent(), /Waiting/, 'the run, waiting');
  await eventRun.getByRole('button', { name: /^Log of the run of/ }).click();
  const detail = page.getByRole('region', { name: /^Run of/ });
  await detail.waitFor();
  t.match(await detail.getByRole('list', { name: 'Attempts of http_request' }).textContent(), /StatusSucceeded.*"amount": "7500"/s, "the call's rendered input");
  t.match(await detail.getByRole('list', { name: 'Attempts of wait' }).textContent(), /StatusWaiting.*"resumeAt"/s, 'the wait, with when it resumes');
  t.same(await accessibilityProblems(page), [], 'automation: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same(await overflowAt(page, 1280), [], 'nor at 1280 px');
  await screenshot(page, 'automation');

  await detail.getByRole('button', { name: 'Cancel this run' }).click();
  await detail.getByText('Canceled', { exact: true }).waitFor();
  // The list refetches after the detail: wait for its row (read at once, it once still said Waiting).
  const canceledRow = runs.getByRole('row', { name: /Event: payment_intent\.created/ });
  await canceledRow.getByText(/Canceled/).waitFor();
  t.match(await canceledRow.textContent(), /Canceled/);
  t.match(
    await runsOf(svc, key, automationId),
    [
      { status: 'canceled', test: false },
      { status: 'succeeded', test: true },
    ],
    'the API has it canceled',
  );

  // Edited: a new version; then the first one restored as a third.
  await page.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit the automation' });
  t.equal(await edit.getByRole('textbox', { name: 'URL' }).inputValue(), receiver.url, 'the editor starts from the definition');
  await edit.getByLabel('Name').fill('Tell the back office at once');
  await edit.getByRole('button', { name: 'Remove step wait' }).click();
  await edit.getByRole('button', { name: 'Save as a new version' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved as version 2.' }).waitFor();
  await page.getByRole('heading', { name: 'Tell the back office at once', level: 1 }).waitFor();
  const versions = page.getByRole('region', { name: 'Versions' });
  t.match(await versions.getByRole('row', { name: /^2/ }).textContent(), /Tell the back office at once.*http_request(?!, wait).*Current/);
  await versions.getByRole('button', { name: 'Restore version 1' }).click();
  await page.getByRole('status').filter({ hasText: 'Version 1 restored as version 3.' }).waitFor();
  t.match((await svc.request('GET', `${AUTOMATIONS}/${automationId}`, { key })).body, { name: 'Tell the back office', version: 3, steps: [{ id: 'http_request' }, { id: 'wait' }] });

  // Disabled: an event starts nothing.
  await page.getByRole('button', { name: 'Disable', exact: true }).click();
  await page.getByRole('button', { name: 'Enable', exact: true }).waitFor();
  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal((await runsOf(svc, key, automationId)).length, 2, 'no run once disabled');
  t.equal(receiver.count, 2);

  // The last run of each automation comes with the list; the step log of every run, filtered by action.
  const runsAsked: string[] = [];
  const askedRuns = (request: { url(): string }) => {
    if (/\/api\/v1\/automations\/[^/?]+\/runs/.test(request.url())) runsAsked.push(request.url());
  };
  page.on('request', askedRuns);
  await navigate(page, 'Automations');
  await row.getByText(/Canceled/).waitFor();
  t.match(await row.textContent(), /Tell the back office.*Disabled.*Canceled/, 'the last run in the list');
  page.off('request', askedRuns);
  t.same(runsAsked, [], "the list asks no automation's runs");
  const log = page.getByRole('region', { name: 'Step log' });
  await log
    .getByRole('row', { name: /Call a URL/ })
    .first()
    .waitFor();
  t.equal(await log.getByRole('row', { name: /Tell the back office/ }).count(), 4, 'two runs, two steps each');
  await log.getByLabel('Action').selectOption('wait');
  await log.getByRole('row', { name: /Waiting/ }).waitFor();
  t.equal(await log.getByRole('row', { name: /Wait/ }).count(), 2, 'only the waits');
  await log.getByLabel('Status').selectOption('failed');
  await log.getByText('No step attempt to show.').waitFor();
  await log.getByLabel('Status').selectOption('');
  await log.getByLabel('Action').selectOption('');
  t.same(await accessibilityProblems(page), [], 'automations: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same(await overflowAt(page, 1280), [], 'nor at 1280 px');
  await screenshot(page, 'automations');

  // Another merchant's automation is not found.
  const other = await svc.sandboxMerchant('Other flows');
  const theirs = await createAutomation(svc, other.key, onPaymentIntent([{ id: 'call', action: 'http_request', params: { url: receiver.url } }]));
  await page.goto(`${svc.baseUrl}/dashboard/automations/${theirs.id}`);
  await page.getByText('No such automation in this environment.').waitFor();
  t.same(refused, [`404 GET /api/v1/automations/${theirs.id}`], "the API refused another merchant's automation, and nothing else");
  refused.length = 0;

  // Live has its own automations.
  const { secret: liveKey } = await svc.apiKey(merchant.id, ['*'], 'live');
  await createAutomation(svc, liveKey, { name: 'Live ping', trigger: { type: 'schedule', cron: '0 9 * * 1' }, steps: [{ id: 'pause', action: 'wait', params: { seconds: 60 } }] });
  await page.getByRole('link', { name: 'All automations' }).click();
  await row.waitFor();
  t.equal(await page.getByRole('row', { name: /Live ping/ }).count(), 0, 'not in sandbox');
  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  const live = page.getByRole('row', { name: /Live ping/ });
  await live.getByText('Never').waitFor();
  t.match(await live.textContent(), /Live ping.*Schedule 0 9 \* \* 1 \(UTC\).*Enabled.*Never/, "live's own list");
  t.equal(await page.getByRole('row', { name: /Tell the back office/ }).count(), 0, 'without the sandbox one');
  await (await withHeader(page)).getByRole('radio', { name: 'Sandbox' }).check();

  // Deleted, once confirmed.
  await row.getByRole('link', { name: 'Tell the back office' }).click();
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No automation in this environment yet.').waitFor();
  t.equal((await svc.request('GET', `${AUTOMATIONS}/${automationId}`, { key })).status, 404, 'the API has it deleted');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Automatisations', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Nouvelle automatisation' }).click();
  await page.getByRole('form', { name: 'Nouvelle automatisation' }).getByRole('button', { name: 'Ajouter l’étape' }).click();
  t.same(await overflowAt(page), [], 'in French too, no horizontal scroll at 320 px');
  t.same(refused, [], 'no other request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
