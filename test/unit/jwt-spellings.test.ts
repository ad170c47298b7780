import t from '#tap';
import { AppTokenSigner } from '#packages/families/accounts/user/tokens.js';
import { OperatorTokens } from '#packages/families/operators/tokens.js';
import { ManualClock } from '#packages/core/clock.js';
import { isCanonicalJwt } from '#packages/core/jwt.js';

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The token with its signature's last character swapped for one that differs only in the bits decoders ignore. */
function respelled(token: string): string {
  const last = token.at(-1)!;
  const value = B64URL.indexOf(last);
  // A 32-byte HMAC is 43 characters: the last one carries 4 bits, its 2 low bits are unused.
  return token.slice(0, -1) + B64URL[(value & ~3) | ((value + 1) & 3)];
}

t.test('a second spelling of a signed token is no credential', async (t) => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
  const key = Buffer.alloc(32, 7);

  const operators = new OperatorTokens(clock, key);
  const operatorToken = await operators.sign({ operatorId: 'opr_1', sessionId: 's1' }, new Date('2026-01-02T00:00:00Z'));
  t.same(await operators.claims(operatorToken), { operatorId: 'opr_1', sessionId: 's1' }, 'the token as signed');
  t.not(respelled(operatorToken), operatorToken);
  t.equal(Buffer.from(respelled(operatorToken).split('.')[2]!, 'base64url').compare(Buffer.from(operatorToken.split('.')[2]!, 'base64url')), 0, 'which decodes to the same signature');
  t.equal(await operators.claims(respelled(operatorToken)), undefined, 'an operator token respelled is refused');

  const apps = new AppTokenSigner(clock, key);
  const claims = { userId: 'usr_1', sessionId: 's1', organizationId: 'org_1', merchantId: 'acct_1', role: 'owner' as const, scopes: [] };
  const appToken = await apps.sign(claims);
  t.same(await apps.claims(appToken), claims);
  await t.rejects(apps.claims(respelled(appToken)), { code: 'IKW-AUT-007' }, 'an AppToken respelled is refused');
});

t.test('canonical spelling', async (t) => {
  t.ok(isCanonicalJwt('eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA1JJJW8opsbCGfG_HACGpVUMN_a9IV7pAx_Zmeo'));
  t.notOk(isCanonicalJwt('eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA1JJJW8opsbCGfG_HACGpVUMN_a9IV7pAx_Zmep'), 'unused bits set');
  t.notOk(isCanonicalJwt('eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA1JJJW8opsbCGfG_HACGpVUMN_a9IV7pAx_Zmeo='), 'padding');
  t.notOk(isCanonicalJwt('eyJhbGciOiJIUzI1NiJ9.e30'), 'two parts');
  t.notOk(isCanonicalJwt('eyJhbGciOiJIUzI1NiJ9.e+0.ZRrHA1JJJW8opsbCGfG_HACGpVUMN_a9IV7pAx_Zmeo'), 'base64, not base64url');
});
