/**
 * Hub2's webhook signature (packages/connectors/hub2/signatures.ts): `Hub2-Signature: s1=…[,s0=…]`,
 * hex HMAC-SHA256 of the raw body; s0 (the old secret) accepted during a rotation; a tampered body,
 * another secret, a missing or malformed header refused; the re-serialised JSON only as a fallback.
 */
import t from '#tap';
import { signatureOf, signatureValues, verifiesWith } from '#packages/connectors/hub2/signatures.js';

const SECRET = 'whsec_current';
const OLD = 'whsec_old';
const raw = Buffer.from('{"id":"evt_1", "type":"payment.succeeded","data":{"intentId":"pi_1"}}');

t.test('s1 over the raw body verifies; the header may carry spaces and other parts', async (t) => {
  t.ok(verifiesWith(raw, `s1=${signatureOf(raw, SECRET)}`, SECRET));
  t.ok(verifiesWith(raw, `t=1700000000, s1=${signatureOf(raw, SECRET).toUpperCase()}`, SECRET), 'upper-case hex, other parts ignored');
});

t.test('during a rotation: s1 with the new secret, s0 with the old; Sika on either side verifies', async (t) => {
  const header = `s1=${signatureOf(raw, SECRET)},s0=${signatureOf(raw, OLD)}`;
  t.ok(verifiesWith(raw, header, SECRET), 'Sika already on the new secret');
  t.ok(verifiesWith(raw, header, OLD), 'Sika still on the old secret: s0');
  t.notOk(verifiesWith(raw, header, 'whsec_other'), 'neither');
  t.same(signatureValues(header), [signatureOf(raw, SECRET), signatureOf(raw, OLD)]);
});

t.test('refused: a tampered body, another secret, a missing, empty or malformed header, an empty secret', async (t) => {
  const header = `s1=${signatureOf(raw, SECRET)}`;
  t.notOk(verifiesWith(Buffer.from(raw.toString().replace('pi_1', 'pi_2')), header, SECRET), 'tampered');
  t.notOk(verifiesWith(raw, `s1=${signatureOf(raw, 'whsec_wrong')}`, SECRET), 'another secret');
  t.notOk(verifiesWith(raw, undefined, SECRET), 'missing');
  t.notOk(verifiesWith(raw, '', SECRET), 'empty');
  t.notOk(verifiesWith(raw, signatureOf(raw, SECRET), SECRET), 'no s1= label');
  t.notOk(verifiesWith(raw, `s1=${signatureOf(raw, SECRET).slice(0, 63)}`, SECRET), 'short');
  t.notOk(verifiesWith(raw, `s2=${signatureOf(raw, SECRET)}`, SECRET), 'an unknown label');
  t.notOk(verifiesWith(raw, `s1=${signatureOf(raw, '')}`, ''), 'no secret');
});

t.test('the re-serialised JSON is a fallback: a signature over JSON.stringify(JSON.parse(body)) verifies', async (t) => {
  const reserialised = JSON.stringify(JSON.parse(raw.toString()));
  t.not(reserialised, raw.toString(), 'the raw body has spacing the re-serialised form does not');
  t.ok(verifiesWith(raw, `s1=${signatureOf(reserialised, SECRET)}`, SECRET));
  t.notOk(verifiesWith(Buffer.from('not json'), `s1=${signatureOf('"not json"', SECRET)}`, SECRET), 'no fallback for a body that is not JSON');
});
