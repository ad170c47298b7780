import { Webhook } from 'standardwebhooks';
import t from '#tap';
import { generateSigningSecret, SecretBox } from '#packages/core/secrets.js';
import { signatureHeader } from '#packages/webhooks/signing.js';

t.test('signatures verify with the official standardwebhooks library, for each of two secrets', async (t) => {
  const oldSecret = generateSigningSecret();
  const newSecret = generateSigningSecret();
  t.match(newSecret, /^whsec_[A-Za-z0-9+/]{44}$/);
  const body = JSON.stringify({ id: 'evt_1', type: 'payout.paid', data: { amount: 100 } });
  const ts = Math.floor(Date.now() / 1000);
  const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader([newSecret, oldSecret], 'evt_1', ts, body) };
  t.same(new Webhook(newSecret).verify(body, headers), JSON.parse(body));
  t.same(new Webhook(oldSecret).verify(body, headers), JSON.parse(body));
  t.throws(() => new Webhook(generateSigningSecret()).verify(body, headers), 'another secret does not verify');
  t.throws(() => new Webhook(newSecret).verify(`${body} `, headers), 'a changed body does not verify');
});

t.test('secrets are sealed with AES-256-GCM and refuse tampering', async (t) => {
  const box = new SecretBox(Buffer.alloc(32, 7));
  const sealed = box.seal('whsec_abc');
  t.not(sealed, box.seal('whsec_abc'), 'a fresh IV each time');
  t.notMatch(sealed, /whsec/);
  t.equal(box.open(sealed), 'whsec_abc');
  const raw = Buffer.from(sealed.slice(3), 'base64');
  raw[raw.length - 1]! ^= 1;
  t.throws(() => box.open(`v1:${raw.toString('base64')}`));
  t.throws(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed), 'another key cannot open it');
});
