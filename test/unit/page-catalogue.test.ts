/**
 * The payer's pages' one catalogue (packages/families/checkout/http/page-words.ts): every key has a text in
 * every language, and the reasons of failures and refusals are named by code in each language,
 * never the provider's or the API's English message.
 */
import t from '#tap';
import { builtInTemplate } from '#packages/families/templates/defaults.js';
import { CATALOGUE, failureReason, refusalText } from '#packages/families/checkout/http/page-words.js';

/** Every leaf of a catalogue as `path → text`. */
function leaves(value: unknown, path = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) for (const [p, leaf] of leaves(v, path ? `${path}.${k}` : k)) out.set(p, leaf);
  } else out.set(path, value);
  return out;
}

t.test('every key has a text in English and in French', async (t) => {
  const en = leaves(CATALOGUE.en);
  const fr = leaves(CATALOGUE.fr);
  t.ok(en.size > 150, `the catalogue holds the pages' texts (${en.size})`);
  t.same(
    [...en.keys()].filter((k) => !fr.has(k)),
    [],
    'no English key without its French',
  );
  t.same(
    [...fr.keys()].filter((k) => !en.has(k)),
    [],
    'no French key without its English',
  );
  for (const [k, v] of [...en, ...fr]) if (typeof v !== 'string' || v.trim() === '') t.fail(`${k} is not a text: ${JSON.stringify(v)}`);
});

t.test('a failure is named by its code in the payer’s language, an unknown code by the general reason', async (t) => {
  t.equal(failureReason('fr', 'insufficient_funds'), 'le solde du compte est insuffisant');
  t.equal(failureReason('en', 'insufficient_funds'), 'the account’s balance is too low');
  t.equal(failureReason('fr', 'provider_error'), CATALOGUE.fr.failureGeneral);
  t.equal(failureReason('en', 'provider_error'), CATALOGUE.en.failureGeneral, 'English too: the provider’s message is never shown');
  t.equal(failureReason('fr', 'toString'), CATALOGUE.fr.failureGeneral, 'only the catalogue’s own keys');
});

t.test('a refusal is named by code and field, then code, then the general sentence', async (t) => {
  t.equal(refusalText('fr', 'IKW-VAL-001', 'Amount'), 'Saisissez un montant valide');
  t.equal(refusalText('fr', 'IKW-VAL-001', 'Other'), CATALOGUE.fr.refusals['IKW-VAL-001']);
  t.equal(refusalText('fr', 'IKW-VAL-007'), 'Ce numéro de mobile money n’est pas valide');
  t.equal(refusalText('en', 'IKW-RES-003'), CATALOGUE.en.refusalGeneral);
  t.equal(refusalText('fr', 'IKW-RES-003'), CATALOGUE.fr.refusalGeneral);
});

t.test('the e-mails and documents payers get have an English and a French built-in template', async (t) => {
  for (const purpose of ['customer_portal_code', 'invoice_sent', 'invoice_reminder', 'invoice_receipt', 'receipt', 'invoice']) {
    const locales = Object.keys(builtInTemplate(purpose)?.version.locales ?? {}).sort();
    t.same(locales, ['en', 'fr'], purpose);
  }
});
