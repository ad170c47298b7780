/**
 * Refusals (docs/architecture.md, "Refusals"): a decider refuses with a Refusal naming a domain
 * field; the route that carried the command names that field for its clients, and the code table
 * gives the status.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Knex } from 'knex';
import t, { type Test } from '#tap';
import { ERROR_CODES } from '#packages/families/index.js';
import { createLogger } from '#packages/core/logger.js';
import { Refusal, RefusedItems } from '#packages/core/refusal.js';
import { createApp } from '#packages/http/app.js';
import type { IdempotencyStore } from '#packages/http/idempotency.js';
import { route } from '#packages/http/routes.js';

/** Public routes only: nothing here authenticates or stores an answer, so no database is needed. */
async function serve(t: Test): Promise<string> {
  const refuse = (field?: string) => async () => {
    throw new Refusal('IKW-MKT-005', 'At most 10 of this order remains refundable', field);
  };
  const app = createApp({
    knex: {} as Knex,
    credentials: { apiKeys: async () => undefined, adminKeys: { looksLike: () => false, actorOf: async () => undefined } },
    log: createLogger('silent'),
    idempotency: {} as IdempotencyStore,
    errors: ERROR_CODES,
    families: [
      {
        name: 'refusals',
        routes: [
          route({ method: 'post', path: '/mapped', summary: 'Names the field', auth: 'public', fields: { amount: 'amountMinor' }, handler: refuse('amount') }),
          route({
            method: 'post',
            path: '/within',
            summary: 'Names the fields within one',
            auth: 'public',
            fields: { paymentMethod: 'payment_method', 'paymentMethod.mobileMoney': 'payment_method.mobile_money' },
            handler: refuse('paymentMethod.mobileMoney.msisdn'),
          }),
          route({ method: 'post', path: '/within-short', summary: 'Names the field a field is within', auth: 'public', fields: { paymentMethod: 'payment_method' }, handler: refuse('paymentMethod.card') }),
          route({ method: 'post', path: '/lookalike', summary: 'A field that only starts like a named one', auth: 'public', fields: { payment: 'payment_ref' }, handler: refuse('paymentMethod.card') }),
          route({ method: 'post', path: '/unmapped', summary: 'Names no field', auth: 'public', handler: refuse('amount') }),
          route({ method: 'post', path: '/fieldless', summary: 'A refusal of no field', auth: 'public', fields: { amount: 'amountMinor' }, handler: refuse() }),
          route({ method: 'post', path: '/inherited', summary: 'A field named like an Object method', auth: 'public', handler: refuse('constructor') }),
          route({
            method: 'post',
            path: '/indexed',
            summary: 'Names a field in every item of a list',
            auth: 'public',
            fields: { 'prices.*.recurring.intervalCount': 'prices.*.recurring.interval_count' },
            handler: refuse('prices.2.recurring.intervalCount'),
          }),
          route({
            method: 'post',
            path: '/indexed-other',
            summary: 'A field of a list that is not named',
            auth: 'public',
            fields: { 'prices.*.recurring.intervalCount': 'prices.*.recurring.interval_count' },
            handler: refuse('prices.2.currency'),
          }),
          route({
            method: 'post',
            path: '/items',
            summary: 'Refuses items of a list',
            auth: 'public',
            fields: { recipientId: 'recipient_id', lines: 'instructions' },
            handler: async () => {
              throw new RefusedItems(
                'IKW-PEN-001',
                '2 of 3 instructions are invalid',
                [
                  { index: 0, code: 'IKW-PEN-002', message: "No such recipient: 'r'", field: 'recipientId' },
                  { index: 2, code: 'IKW-VAL-001', message: 'Too much', field: 'amount' },
                  { index: 1, code: 'IKW-VAL-001', message: 'Fieldless' },
                ],
                'lines',
              );
            },
          }),
        ],
      },
    ],
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test("a decider's refusal reaches the client with the route's name for its field and the code table's status", async (t) => {
  const base = await serve(t);
  const post = async (p: string) => {
    const res = await fetch(`${base}${p}`, { method: 'POST' });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const mapped = await post('/mapped');
  t.equal(mapped.status, ERROR_CODES['IKW-MKT-005'].status, 'the status of the code table');
  t.match(mapped.body, { code: 'IKW-MKT-005', message: 'At most 10 of this order remains refundable', retryable: false, param: 'amountMinor' }, "param: the route's name for the field");
  t.equal((await post('/within')).body.param, 'payment_method.mobile_money.msisdn', 'a field within a named one: the longest named prefix, the rest kept');
  t.equal((await post('/within-short')).body.param, 'payment_method.card', 'a field within a named one, one level');
  t.equal((await post('/lookalike')).body.param, 'paymentMethod.card', 'a name maps whole segments only');
  t.equal((await post('/unmapped')).body.param, 'amount', 'a route that names no field answers with the domain name');
  t.notOk('param' in (await post('/fieldless')).body, 'a refusal of no field has no param');
  t.equal((await post('/inherited')).body.param, 'constructor', "only the route's own names map a field");
  t.equal((await post('/indexed')).body.param, 'prices.2.recurring.interval_count', 'a * names any index, kept in the answer');
  t.equal((await post('/indexed-other')).body.param, 'prices.2.currency', 'another field of the list keeps its name');
  const items = await post('/items');
  t.equal(items.status, ERROR_CODES['IKW-PEN-001'].status, "items refused: the status of the refusal's code");
  t.match(items.body, { code: 'IKW-PEN-001', param: 'instructions' }, "the list in the route's name");
  t.same(
    items.body.errors,
    [
      { index: 0, code: 'IKW-PEN-002', message: "No such recipient: 'r'", param: 'instructions.0.recipient_id' },
      { index: 2, code: 'IKW-VAL-001', message: 'Too much', param: 'instructions.2.amount' },
      { index: 1, code: 'IKW-VAL-001', message: 'Fieldless' },
    ],
    "each item as <list>.<index>.<field> in the route's names, in the order refused",
  );
});

/** The deciders refuse with Refusal, never with the HTTP layer's ApiError. */
t.test('deciders throw no ApiError', async (t) => {
  const root = path.resolve(import.meta.dirname, '../../..');
  const deciders = fs
    .readdirSync(path.join(root, 'packages/families'), { recursive: true, encoding: 'utf8' })
    .filter((file) => /(^|\/)decider\.ts$/.test(file.split(path.sep).join('/')))
    .map((file) => `packages/families/${file.split(path.sep).join('/')}`);
  t.ok(deciders.length > 30, 'the deciders are found');
  for (const file of deciders) t.notMatch(fs.readFileSync(path.join(root, file), 'utf8'), /\bApiError\b/, `${file} refuses with Refusal`);
});
