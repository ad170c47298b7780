/**
 * Invoice reminders (docs/billing.md, "Reminders"): the ready-made automation (a daily schedule,
 * one `send_invoice_reminders` step) e-mails the customer of each open invoice 3 days before its due
 * date and 3 days after it, through a real SMTP server on loopback, on the manual clock day by day:
 * once per (invoice, offset) whatever runs again (the next days, a second automation); in the
 * language the invoice was sent in (else English); never a paid, void, undated invoice, nor another merchant's.
 */
import t from '#tap';
import { invoiceRemindersTemplate } from '#packages/families/automations/definition.js';
import { invoiceNumber } from '#packages/families/billing/invoice/commands.js';
import { createInvoice, setInvoiceStatus } from '../../support/billing.js';
import { createAutomation, runsOf } from '../../support/automations.js';
import { startService, type TestService } from '../../support/system.js';
import { mailsTo as rawMailsTo, startSmtp, type Mail } from '../../support/webhooks.js';

/** The mails to `to`, their quoted-printable text decoded (UTF-8). */
const mailsTo = (mails: readonly Mail[], to: string) =>
  rawMailsTo(mails, to).map((raw) =>
    Buffer.from(
      raw.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8'),
  );

const smtp = await startSmtp(t);
// The manual clock starts on 2026-01-01 at 00:00 UTC.
const svc = await startService(t, { env: { SMTP_URL: smtp.url } });

/** A sandbox merchant whose customers' addresses are verified addresses of its team (a sandbox merchant's mail reaches only its team). */
async function shop(svc: TestService, name: string, customers: string[]) {
  const { merchant, key } = await svc.sandboxMerchant(name);
  for (const email of customers) {
    const member = await svc.member(merchant, email, 'correct horse battery');
    await svc.system.accounts.verifyContact(member, 'email', email, { actor: 'test' });
  }
  return { merchant, key };
}

/** An invoice due on `due` (drafts are made first, then sent: sending finalizes them). */
const draft = async (withKey: string, email: string, due: string | null) =>
  (await createInvoice(svc, withKey, { customer_email: email, currency: 'xof', amount_due: 25_000, description: 'Tissu wax', ...(due ? { due_date: due } : {}) })).id as string;
async function send(withKey: string, id: string, language: 'en' | 'fr') {
  // Not an assertion: the root test would end at its first one, before the subtests.
  const sent = await svc.request('POST', `/api/v1/merchant/invoices/${id}/send`, { key: withKey, body: { language } });
  if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${sent.text}`);
  return id;
}

const customers = { fatou: 'fatou@boutique.example', john: 'john@boutique.example', paid: 'paid@boutique.example', late: 'late@boutique.example', voided: 'void@boutique.example', undated: 'undated@boutique.example' };
const { key } = await shop(svc, 'Boutique Awa', Object.values(customers));
const other = await shop(svc, 'Other shop', ['other@shop.example']);

const [fatou, john, paidEarly, paidLate, voided, undated, elsewhere] = [
  await draft(key, customers.fatou, '2026-01-05'),
  await draft(key, customers.john, '2026-01-05'),
  await draft(key, customers.paid, '2026-01-05'),
  await draft(key, customers.late, '2026-01-05'),
  await draft(key, customers.voided, '2026-01-05'),
  await draft(key, customers.undated, null),
  await draft(other.key, 'other@shop.example', '2026-01-05'),
];
// Fatou's invoice is sent in French; the others are finalized without an e-mail (English, the default).
await send(key, fatou, 'fr');
for (const id of [john, paidEarly, paidLate, voided, undated]) await setInvoiceStatus(svc, key, id, 'open');
await setInvoiceStatus(svc, other.key, elsewhere, 'open');
await setInvoiceStatus(svc, key, paidEarly, 'paid');
await setInvoiceStatus(svc, key, voided, 'void');

/** The reminders each customer got so far (their subjects), the invoice e-mails left out. */
const reminders = (email: string) => mailsTo(smtp.mails, email).filter((m) => /^Subject: (Reminder|Overdue|Rappel|En retard)/m.test(m));

/** Moves the clock to `day` at 09:00 UTC and runs what is due. */
async function dayAt9(day: string) {
  svc.clock.advance(Date.parse(`${day}T09:00:00Z`) - svc.clock.now().getTime());
  await svc.system.drain();
}

const automation = await createAutomation(svc, key, invoiceRemindersTemplate({ daysBefore: 3, daysAfter: 3 }) as unknown as Record<string, unknown>);
await svc.system.drain();

t.test('3 days before the due date: a reminder to each open invoice’s customer, in the language it was sent in', async (t) => {
  await dayAt9('2026-01-01');
  t.same(reminders(customers.fatou), [], 'four days before: nothing yet');
  await dayAt9('2026-01-02');
  const [fr] = reminders(customers.fatou);
  t.ok(fr, 'Fatou is reminded');
  t.match(fr, /Rappel/);
  t.match(fr, new RegExp(`La facture ${invoiceNumber(fatou)} de Boutique Awa, 25\\s000\\sF\\sCFA, est à payer le 2026-01-05, dans 3 jours\\.`, 'u'), 'in French, as it was sent');
  t.ok(fr!.includes(`/hosted/invoices/${fatou}?lang=fr`), 'the link opens the page in French');
  t.match(fr, /Subject: Rappel : facture/);
  t.match(fr, /^From: "?Boutique Awa via Sika"? <merchants@sika\.invalid>/m);
  const [en] = reminders(customers.john);
  t.match(en, new RegExp(`Subject: Reminder: invoice ${invoiceNumber(john)} from Boutique Awa`));
  t.match(en, /is due on 2026-01-05, in 3 days\./);
  t.same(reminders(customers.paid), [], 'a paid invoice is not reminded');
  t.same(reminders(customers.voided), [], 'a void invoice is not reminded');
  t.same(reminders(customers.undated), [], 'an invoice with no due date is not reminded');
  t.same(reminders('other@shop.example'), [], 'another merchant’s invoice is not this automation’s');
  t.equal(reminders(customers.late).length, 1);
  const runs = await runsOf(svc, key, automation.id);
  t.equal(runs.filter((r) => r.status === 'succeeded').length, 2, 'one run a day');
});

t.test('the days after, and a second automation the same day: no reminder twice', async (t) => {
  await dayAt9('2026-01-03');
  await dayAt9('2026-01-04');
  await createAutomation(svc, key, invoiceRemindersTemplate({ daysBefore: 3, daysAfter: 3 }) as unknown as Record<string, unknown>);
  await dayAt9('2026-01-05');
  t.equal(reminders(customers.fatou).length, 1, 'one reminder before the due date');
  t.equal(reminders(customers.john).length, 1);
});

t.test('3 days after the due date: an overdue reminder, only to invoices still open, once', async (t) => {
  await setInvoiceStatus(svc, key, paidLate, 'paid');
  await dayAt9('2026-01-07');
  t.equal(reminders(customers.fatou).length, 1, 'two days after: not yet');
  await dayAt9('2026-01-08');
  const overdue = reminders(customers.fatou)[1];
  t.match(overdue, /En retard/);
  t.match(overdue, /était à payer le 2026-01-05, il y a 3 jours\./u);
  t.match(reminders(customers.john)[1], /Subject: Overdue: invoice/);
  t.equal(reminders(customers.late).length, 1, 'paid since its first reminder: no overdue one');
  await dayAt9('2026-01-09');
  await dayAt9('2026-01-10');
  t.equal(reminders(customers.fatou).length, 2, 'the next days: nothing more');
  t.equal(reminders(customers.john).length, 2);
});

t.test('a day the schedule missed is caught up before the due date, never after it', async (t) => {
  const late = await draft(key, customers.late, '2026-01-20');
  await setInvoiceStatus(svc, key, late, 'open');
  // Nothing runs from the 11th to the 18th (the clock jumps): the run that comes still reminds before the 20th.
  await dayAt9('2026-01-19');
  const got = reminders(customers.late).filter((m) => m.includes(invoiceNumber(late)));
  t.equal(got.length, 1, 'reminded on the 19th');
  t.match(got[0], /is due on 2026-01-20, in 3 days\./, 'the offset it was set for');
});

t.test('a reminder claimed by a run that died before sending it is not sent again (at most once)', async (t) => {
  const id = await draft(key, customers.late, '2026-01-30');
  await setInvoiceStatus(svc, key, id, 'open');
  // What a run that died between its claim and the e-mail leaves.
  await svc.system
    .knex('invoice_reminders')
    .insert({ invoice_id: id, offset_days: -3, merchant_id: (await svc.system.knex('read.invoices').where({ id }).first('merchant_id')).merchant_id, environment: 'sandbox', automation_run_id: 'run_dead', claimed_at: svc.clock.now() });
  await dayAt9('2026-01-27');
  await dayAt9('2026-01-28');
  t.same(
    reminders(customers.late).filter((m) => m.includes(invoiceNumber(id))),
    [],
    'the claimed reminder is not sent by the runs after',
  );
  await dayAt9('2026-02-02');
  const after = reminders(customers.late).filter((m) => m.includes(invoiceNumber(id)));
  t.equal(after.length, 1, 'the reminder after the due date is its own');
  t.match(after[0], /Subject: Overdue/);
});
