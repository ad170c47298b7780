import t from '#tap';
import { ACCESS_TOKEN_TTL_S } from '#packages/families/accounts/user/tokens.js';
import { startService } from '../../support/system.js';

const PAYOUT = { amount: 1000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'wave', msisdn: '+221771234599' } };

t.test('AppTokens: sign in, act for the merchant with payouts scopes, expire, refresh with rotation', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  const other = await svc.merchant('Other');
  await svc.member(m, 'Owner@Shop.example', 'correct horse');
  await svc.member(m, 'viewer@shop.example', 'read only please', 'viewer');

  const bad = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'owner@shop.example', password: 'wrong password' } });
  t.match(bad, { status: 401, body: { code: 'IKW-AUT-008' } });
  const nobody = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'nobody@shop.example', password: 'whatever!!' } });
  t.same(nobody.body.message, bad.body.message, 'an unknown user gets the same answer');
  t.match(await svc.request('POST', '/api/v1/auth/login', { body: { email: 'owner@shop.example', password: 'short' } }), { status: 400, body: { code: 'IKW-VAL-001', param: 'password' } });

  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'owner@shop.example', password: 'correct horse' } });
  t.equal(login.status, 200);
  t.match(login.body, { tokenType: 'Bearer', expiresIn: ACCESS_TOKEN_TTL_S, user: { email: 'owner@shop.example', merchantId: m.id } });
  const token: string = login.body.accessToken;

  // Payouts with an AppToken: X-Environment is required and chooses the environment.
  t.match(await svc.request('POST', '/api/v1/payouts', { key: token, body: PAYOUT }), { status: 400, body: { code: 'IKW-AUT-006' } });
  const noFunds = await svc.request('POST', '/api/v1/payouts', { key: token, body: PAYOUT, headers: { 'x-environment': 'sandbox' } });
  t.match(noFunds, { status: 400, body: { code: 'IKW-BAL-001' } }, 'authenticated and authorised; the balance is empty');
  const balance = await svc.request('GET', '/api/v1/balance', { key: token, headers: { 'x-environment': 'live' } });
  t.match(balance, { status: 200, body: { livemode: true } });

  // Another merchant's payout is not found through this token.
  const intent = await svc.request('POST', '/api/v1/payment-intents', { key: other.api_keys.sandbox, body: { amount: 1000, currency: 'xof', transaction_country: 'SN' } });
  t.match(await svc.request('GET', `/api/v1/payment-intents/${intent.body.id}`, { key: token }), { status: 404 });

  // Scopes: payouts.read cannot create.
  const viewer = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'viewer@shop.example', password: 'read only please' } });
  t.match(await svc.request('POST', '/api/v1/payouts', { key: viewer.body.accessToken, body: PAYOUT, headers: { 'x-environment': 'sandbox' } }), {
    status: 403,
    body: { code: 'IKW-AUT-004' },
  });
  t.match(await svc.request('GET', '/api/v1/payouts/po_000000000000000000000000', { key: viewer.body.accessToken, headers: { 'x-environment': 'sandbox' } }), {
    status: 404,
  });

  // A forged or expired token is refused.
  const forged = `${token.slice(0, -3)}AAA`;
  t.match(await svc.request('GET', '/api/v1/balance', { key: forged }), { status: 401, body: { code: 'IKW-AUT-007' } });
  svc.clock.advance((ACCESS_TOKEN_TTL_S + 1) * 1000);
  t.match(await svc.request('GET', '/api/v1/balance', { key: token }), { status: 401, body: { code: 'IKW-AUT-007' } });

  // Refresh rotates: the new pair works, the old refresh token works once only, and its reuse ends the session.
  const refreshed = await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: login.body.refreshToken } });
  t.equal(refreshed.status, 200);
  t.not(refreshed.body.refreshToken, login.body.refreshToken);
  t.equal((await svc.request('GET', '/api/v1/balance', { key: refreshed.body.accessToken })).status, 200);
  const reuse = await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: login.body.refreshToken } });
  t.match(reuse, { status: 401, body: { code: 'IKW-AUT-007' } });
  const afterTheft = await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: refreshed.body.refreshToken } });
  t.match(afterTheft, { status: 401, body: { code: 'IKW-AUT-007' } }, 'the whole session ended when a used token came back');
  t.match(await svc.request('POST', '/api/v1/auth/refresh', { body: { refreshToken: 'rt_nonsense' } }), { status: 401, body: { code: 'IKW-AUT-007' } });

  // No password or refresh token ever reaches the event log.
  const events = await svc.system.knex('events').where('stream_id', 'like', 'user-%').select('data');
  const log = JSON.stringify(events);
  t.notMatch(log, /correct horse/);
  t.notMatch(log, new RegExp(login.body.refreshToken.slice(3, 20)));
});
