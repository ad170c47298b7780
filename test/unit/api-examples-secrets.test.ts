/** A recorded example never carries a secret the service gave out (test/support/api-examples.ts). */
import t from '#tap';
import { maskSecrets } from '../support/api-examples.js';

t.test('each secret keeps its prefix and its length, and nothing else changes', async (t) => {
  const masked = maskSecrets({
    secret: 'sk_test_abc123',
    nested: [{ token: 'inv_Zx9-q.0190aa', note: 'a key sk_live_QWERTY in words' }],
    accessToken: 'eyJhbGc.eyJzdWIi.sig-1',
    id: 'po_1Ucgk3azOrMVvO2kPcZFJUv6',
    amount: 2000,
  });
  t.same(masked, {
    secret: 'sk_test_XXXXXX',
    nested: [{ token: 'inv_' + 'X'.repeat('Zx9-q.0190aa'.length), note: 'a key sk_live_XXXXXX in words' }],
    accessToken: 'eyJ' + 'X'.repeat('hbGc.eyJzdWIi.sig-1'.length),
    id: 'po_1Ucgk3azOrMVvO2kPcZFJUv6',
    amount: 2000,
  });
});

t.test('secrets by their field, in URLs and in a QR code; a request’s one-time code, not an answer’s bank code', async (t) => {
  const totp = maskSecrets({
    secret: 'GVHFE544MLYAVUOI',
    otpauthUrl: 'otpauth://totp/Sika:a%40b.example?secret=GVHFE544MLYAVUOI&issuer=Sika',
    qrCodeSvg: '<svg><path d="M1 1.5h7"/></svg>',
    recoveryCodes: ['snlxv-s6wlv', 'uviuo-txkt2'],
    exchangeKey: 't36dscLA1E3a',
  }) as Record<string, unknown>;
  t.same(totp.secret, 'XXXXX000XXXXXXXX', 'a field’s secret keeps its shape');
  t.equal(totp.otpauthUrl, `otpauth://totp/Sika:a%40b.example?secret=${'X'.repeat(16)}&issuer=Sika`);
  t.notMatch(String(totp.qrCodeSvg), /path/, 'the QR code draws no secret');
  t.same(totp.recoveryCodes, ['xxxxx-x0xxx', 'xxxxx-xxxx0']);
  t.equal(totp.exchangeKey, 'x00xxxXX0X0x');
  const url = maskSecrets({ authorizationUrl: 'http://idp/auth?response_type=code&state=abc.def&nonce=n0nce&code_challenge=ch&client_id=sika' }) as { authorizationUrl: string };
  t.equal(url.authorizationUrl, 'http://idp/auth?response_type=code&state=XXXXXXX&nonce=XXXXX&code_challenge=XX&client_id=sika');
  t.same(maskSecrets({ code: '200847', challengeId: 'c1', password: 'correct horse' }, 'request'), { code: '000000', challengeId: 'c1', password: 'xxxxxxx xxxxx' });
  t.same(maskSecrets({ code: '058', name: 'Guaranty Trust Bank' }), { code: '058', name: 'Guaranty Trust Bank' }, 'an answer’s code is kept');
});
