/** The checkout session and payment link Deciders on their own: expiry, attempts, cancel, and the single-use claim. */
import t from '#tap';
import { checkoutSessionDecider, sessionStatus, type CheckoutSessionCommand } from '#packages/families/checkout/checkout-session/decider.js';
import { toCheckoutSessionObject } from '#packages/families/checkout/checkout-session/render.js';
import type { CheckoutSessionCreated } from '#packages/families/checkout/checkout-session/events.js';
import type { PaymentLinkCommand } from '#packages/families/checkout/payment-link/decider.js';
import { paymentLinkAggregate, toPaymentLinkObject } from '#packages/families/checkout/payment-link/render.js';
import type { PaymentLinkCreated } from '#packages/families/checkout/payment-link/events.js';
import { spec } from '../../support/decider-spec.js';

const at = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(at.getTime() + ms);
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const stranger = { merchantId: 'acct_2', environment: 'sandbox' as const };

const sessions = spec(checkoutSessionDecider);
const session: CheckoutSessionCreated = {
  id: 'cs_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  amount: 1_000,
  currency: 'xof',
  country: 'SN',
  description: null,
  paymentMethodTypes: ['mobile_money'],
  successUrl: null,
  cancelUrl: null,
  customerEmail: null,
  customerPhone: null,
  paymentLinkId: null,
  feeMode: 'merchant',
  deferPaymentIntentCreation: true,
  metadata: {},
  url: 'http://x/checkout/session/cs_1',
  expiresAt: later(86_400_000).toISOString(),
  createdAt: at.toISOString(),
};
const open: CheckoutSessionCommand = { type: 'create', session };
const attach = (attempt: number, paymentStatus: 'unpaid' | 'failed' = 'unpaid', when = at): CheckoutSessionCommand => ({
  type: 'attach_payment_intent',
  owner,
  at: when,
  paymentIntentId: `pi_${attempt}`,
  attempt,
  amount: 1_000,
  paymentStatus,
});

t.test('session: attempts are numbered, a repeated attempt attaches nothing', async (t) => {
  const first = sessions
    .given(sessions.history(open))
    .when(attach(1))
    .thenMatch(t, [{ type: 'checkout_session.payment_intent_attached', data: { paymentIntentId: 'pi_1', attempt: 1 } }]);
  sessions.given(first).when(attach(1)).thenNothing(t, 'racing requests of one attempt attach it once');
  sessions
    .given(first)
    .when(attach(2, 'failed'))
    .thenState((s) => t.match(s, { paymentIntentId: 'pi_2', attempt: 2 }));
  sessions
    .given(first)
    .when({ ...attach(2), owner: stranger } as CheckoutSessionCommand)
    .thenThrows(t, { code: 'IKW-RES-001', param: 'checkoutSessionId' });
});

t.test('session: status from the payment and the clock', async (t) => {
  const state = sessions.state(sessions.history(open));
  t.equal(sessionStatus({ ...state, session }, 'unpaid', later(86_400_000 - 1)), 'open');
  t.equal(sessionStatus({ ...state, session }, 'unpaid', later(86_400_000)), 'expired');
  t.equal(sessionStatus({ ...state, session }, 'processing', later(86_400_000)), 'open', 'a payment under way may still finish');
  t.equal(sessionStatus({ ...state, session }, 'paid', later(86_400_000)), 'complete');
  t.match(toCheckoutSessionObject(state, 'unpaid', at), { object: 'checkout.session', status: 'open', amountTotal: 1_000, livemode: false });
  sessions
    .given(sessions.history(open))
    .when(attach(1, 'unpaid', later(86_400_000)))
    .thenThrows(t, { code: 'IKW-CHK-001', param: 'checkoutSessionId' });
});

t.test('session: cancel once; not while paying, nor once paid or expired', async (t) => {
  const created = sessions.history(open);
  const cancel = (paymentStatus: 'unpaid' | 'processing' | 'paid', when = at): CheckoutSessionCommand => ({ type: 'cancel', owner, at: when, paymentStatus });
  const canceled = sessions
    .given(created)
    .when(cancel('unpaid'))
    .thenMatch(t, [{ type: 'checkout_session.canceled' }]);
  sessions.given(canceled).when(cancel('unpaid')).thenNothing(t);
  sessions.given(canceled).when(attach(1)).thenThrows(t, 'IKW-CHK-001');
  sessions.given(created).when(cancel('processing')).thenThrows(t, { code: 'IKW-RES-002', param: 'checkoutSessionId' });
  sessions.given(created).when(cancel('paid')).thenThrows(t, 'IKW-CHK-001');
  sessions
    .given(created)
    .when(cancel('unpaid', later(86_400_000)))
    .thenThrows(t, 'IKW-CHK-001');
});

t.test('session: the merchant expires it once, while open; its expiry becomes then', async (t) => {
  const created = sessions.history(open);
  const expire = (paymentStatus: 'unpaid' | 'processing' | 'paid' | 'failed', when = at): CheckoutSessionCommand => ({ type: 'expire', owner, at: when, paymentStatus });
  const expired = sessions
    .given(created)
    .when(expire('unpaid', later(60_000)))
    .thenMatch(t, [{ type: 'checkout_session.expired', data: { at: later(60_000).toISOString() } }]);
  const state = sessions.state(expired);
  t.match(toCheckoutSessionObject(state, 'unpaid', later(60_000)), { status: 'expired', expiresAt: later(60_000).toISOString() });
  t.equal(sessionStatus({ ...state, session }, 'processing', later(60_000)), 'open', 'a payment already under way may still finish, as at a lifetime\u2019s end');
  sessions
    .given(expired)
    .when(expire('unpaid', later(60_001)))
    .thenThrows(t, { code: 'IKW-CHK-001', param: 'checkoutSessionId', message: /expired/ });
  sessions
    .given(expired)
    .when(attach(1, 'unpaid', later(60_001)))
    .thenThrows(t, 'IKW-CHK-001');
  sessions
    .given(created)
    .when(expire('failed'))
    .thenMatch(t, [{ type: 'checkout_session.expired' }]);
  sessions.given(created).when(expire('processing')).thenThrows(t, { code: 'IKW-RES-002', param: 'checkoutSessionId' });
  sessions
    .given(created)
    .when(expire('paid'))
    .thenThrows(t, { code: 'IKW-CHK-001', message: /complete/ });
  sessions
    .given(created)
    .when(expire('unpaid', later(86_400_000)))
    .thenThrows(t, 'IKW-CHK-001');
  sessions
    .given(sessions.history(open, { type: 'cancel', owner, at, paymentStatus: 'unpaid' }))
    .when(expire('unpaid'))
    .thenThrows(t, { code: 'IKW-CHK-001', message: /canceled/ });
  sessions
    .given(created)
    .when({ ...expire('unpaid'), owner: stranger } as CheckoutSessionCommand)
    .thenThrows(t, { code: 'IKW-RES-001', param: 'checkoutSessionId' });
});

const links = spec(paymentLinkAggregate);
const link: PaymentLinkCreated = {
  id: 'link_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  slug: 'abcdefghijklmnop',
  url: 'http://x/pay/abcdefghijklmnop',
  amount: 500,
  currency: 'xof',
  country: 'SN',
  feeMode: 'merchant',
  description: null,
  paymentMethodTypes: ['mobile_money'],
  expiresAt: later(3_600_000).toISOString(),
  isSingleUse: true,
  successUrl: null,
  cancelUrl: null,
  createdAt: at.toISOString(),
};
const create: PaymentLinkCommand = { type: 'create', link };
const claim = (sessionId: string, holder: 'paid' | 'paying' | 'released' | null = null, when = at): PaymentLinkCommand => ({ type: 'claim', owner, at: when, sessionId, holder });

t.test('link: deactivate once; a deactivated or expired link takes no claim', async (t) => {
  const created = links.history(create);
  const off = links
    .given(created)
    .when({ type: 'deactivate', owner, at })
    .thenState((s) => t.match(toPaymentLinkObject(s), { active: false, deactivatedAt: at.toISOString() }));
  links
    .given(off)
    .when({ type: 'deactivate', owner, at: later(1) })
    .thenNothing(t);
  links.given(off).when(claim('cs_1')).thenThrows(t, { code: 'IKW-CHK-002', param: 'paymentLinkId' });
  links
    .given(created)
    .when(claim('cs_1', null, later(3_600_000)))
    .thenThrows(t, 'IKW-CHK-002');
  links.given(created).when({ type: 'deactivate', owner: stranger, at }).thenThrows(t, { code: 'IKW-RES-001', param: 'paymentLinkId' });
});

t.test('link: the claim of a single-use link', async (t) => {
  const claimed = links
    .given(links.history(create))
    .when(claim('cs_1'))
    .thenState((_, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['payment_link.claimed'],
      );
      t.notOk('object' in decided[0]!.data, 'the claim is internal');
    });
  links
    .given(claimed)
    .when(claim('cs_2', 'paying'))
    .thenThrows(t, { code: 'IKW-CHK-003', message: /being paid/ });
  links
    .given(claimed)
    .when(claim('cs_2', 'paid'))
    .thenThrows(t, { code: 'IKW-CHK-003', message: /already been paid/ });
  links
    .given(claimed)
    .when(claim('cs_2', 'released'))
    .thenState((s) => t.equal(s.claim?.sessionId, 'cs_2'));
  links
    .given(claimed)
    .when(claim('cs_1'))
    .thenState((_, decided) => t.equal(decided.length, 1, 'the holder\u2019s new attempt is appended too, so it races a takeover on the version'));
});
