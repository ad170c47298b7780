import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startService } from '../support/system.js';

t.test('GET /openapi.json serves the checked-in docs/openapi.json (regenerate: bin/sika docs openapi > docs/openapi.json)', async (t) => {
  const svc = await startService(t);
  const res = await svc.request('GET', '/openapi.json');
  t.equal(res.status, 200);
  t.equal(res.body.openapi, '3.1.0');
  const checkedIn = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/openapi.json'), 'utf8'));
  t.same(res.body, checkedIn);
  t.ok(res.body.paths['/api/v1/payouts'].post, 'payout creation is documented');
  t.ok(res.body.paths['/api/v1/payment-intents/{id}/confirm'].post, 'path parameters use OpenAPI syntax');
});
