import t from '#tap';
import { SecretBox } from '#packages/core/secrets.js';
import type { Definition } from '#packages/families/automations/definition.js';
import { openHeaders, redactSteps, sealHeaders } from '#packages/families/automations/headers.js';

const box = new SecretBox(Buffer.alloc(32, 7));
const call = (headers: Record<string, unknown>): Definition => ({
  name: 'Call',
  description: null,
  trigger: { type: 'schedule', cron: '0 * * * *' },
  steps: [{ id: 'call', action: 'http_request', params: { url: 'https://hooks.example.com/', headers } }],
});

t.test('a version saved before headers were sealed: shown redacted, run as stored, sealed when sent back', async (t) => {
  const legacy = call({ Authorization: 'Bearer legacy-plain-XyZ1' });
  t.same(redactSteps(legacy.steps)[0]!.params.headers, { Authorization: '…XyZ1' });
  t.same(openHeaders(legacy.steps[0]!, box, 'auto_1').headers, { Authorization: 'Bearer legacy-plain-XyZ1' });
  const resaved = sealHeaders(call({ Authorization: '…XyZ1' }), box, 'auto_1', legacy);
  t.notOk(JSON.stringify(resaved).includes('legacy-plain'), 'sealed now');
  t.same(openHeaders(resaved.steps[0]!, box, 'auto_1').headers, { Authorization: 'Bearer legacy-plain-XyZ1' }, 'the stored value, not the redacted text');
});

t.test('a sealed value opens only as the header it was sealed for', async (t) => {
  const sealed = sealHeaders(call({ Authorization: 'Bearer secret-1234' }), box, 'auto_1', null);
  t.throws(() => openHeaders(sealed.steps[0]!, box, 'auto_2'), 'not in another automation');
  const renamed = { ...sealed.steps[0]!, params: { ...sealed.steps[0]!.params, headers: { 'X-Other': (sealed.steps[0]!.params.headers as Record<string, unknown>).Authorization } } };
  t.throws(() => openHeaders(renamed, box, 'auto_1'), 'nor under another name');
  t.same(sealHeaders(call({ Authorization: 'Bearer secret-1234' }), box, 'auto_1', sealed), sealed, 'the same value sent again keeps its sealed form');
});
