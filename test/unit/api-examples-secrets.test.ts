/** A recorded example never carries a secret the service gave out (test/support/api-examples.ts). */
import t from 'tap';
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
