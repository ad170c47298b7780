/**
 * The payer's one-time code stays a secret: it is checked for its form, rides on the collection
 * request only (never on the recorded payment method), and the logger redacts it wherever it is.
 */
import { Writable } from 'node:stream';
import t from '#tap';
import { createLogger } from '#packages/core/logger.js';
import { assertOtpCode, withPayerOtp } from '#packages/families/payments/payment-intent/otp.js';
import type { PaymentMethodDetails } from '#packages/families/payments/payment-intent/events.js';

const mm: PaymentMethodDetails = { type: 'mobile_money', country: 'CI', operator: 'orange_money', msisdn: '+2250701020304' };

t.test('a code is 4 to 8 digits; the refusal never repeats it', async (t) => {
  for (const code of ['1234', '482913', '12345678']) t.doesNotThrow(() => assertOtpCode(code, 'code'), code);
  for (const code of ['123', '123456789', '12a4', ' 1234', '']) {
    t.throws(() => assertOtpCode(code, 'code'), { code: 'IKW-VAL-001', field: 'code' }, JSON.stringify(code));
  }
  try {
    assertOtpCode('98765x', 'code');
  } catch (err) {
    t.notMatch((err as Error).message, /98765/, 'not in the message');
  }
});

t.test('the collection request carries the code; the recorded method is left without it', async (t) => {
  t.same(withPayerOtp(mm, '482913'), { ...mm, otp: '482913' });
  t.notOk('otp' in mm, 'the recorded method is not changed');
  t.equal(withPayerOtp(mm, undefined), mm, 'none given: the method as recorded');
  t.same(withPayerOtp({ type: 'card', token: 'tok_visa' }, '482913'), { type: 'card', token: 'tok_visa' }, 'a card takes no code');
  t.throws(() => withPayerOtp(mm, '12'), { code: 'IKW-VAL-001', field: 'paymentMethod.mobileMoney.otp' });
});

t.test('the logger redacts a code on a request, a body or alone', async (t) => {
  let out = '';
  const sink = new Writable({ write: (chunk, _encoding, done) => ((out += String(chunk)), done()) });
  const log = createLogger('info', sink);
  log.info({ request: { paymentMethod: { type: 'mobile_money', otp: '482913' } }, body: { confirmationCode: '482913' }, otp: '482913' }, 'a collection');
  await new Promise((resolve) => setImmediate(resolve));
  t.match(out, /a collection/, 'the line was written');
  t.notMatch(out, /482913/, 'without the code');
});
