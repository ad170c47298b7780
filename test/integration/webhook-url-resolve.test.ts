/**
 * Delivery-time resolution with the real resolver and a real socket, without network: `localhost`
 * is answered from /etc/hosts, and the pinned connection goes to a receiver on loopback under a
 * name (`.invalid`) that no resolver can answer, proving that nothing but the checked address is
 * used.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo, LookupFunction } from 'node:net';
import t from '#tap';
import { pinnedLookup, resolveDeliveryTarget, type UrlPolicyOptions } from '#packages/webhooks/url-policy.js';
import { parseCidrList } from '#packages/core/cidr.js';

const sandboxPrivate: UrlPolicyOptions = { environment: 'sandbox', allowedPrivateRanges: parseCidrList('127.0.0.0/8,::1') };
const sandbox: UrlPolicyOptions = { environment: 'sandbox', allowedPrivateRanges: [] };

function hostsFileNamesLocalhost(): boolean {
  try {
    return /^\s*(127\.0\.0\.1|::1)\s.*\blocalhost\b/m.test(fs.readFileSync('/etc/hosts', 'utf8'));
  } catch {
    return false;
  }
}

t.test('the system resolver answers localhost; the policy decides', { skip: !hostsFileNamesLocalhost() && 'no localhost in /etc/hosts' }, async (t) => {
  const allowed = await resolveDeliveryTarget('http://localhost:4000/hooks', sandboxPrivate);
  t.ok(allowed.ok, 'allowed in sandbox with WEBHOOK_ALLOW_PRIVATE_URLS');
  if (allowed.ok) t.ok(allowed.address === '127.0.0.1' || allowed.address === '::1', `a loopback address (${allowed.address})`);

  const refused = await resolveDeliveryTarget('http://localhost:4000/hooks', sandbox);
  t.equal(refused.ok ? 'ok' : refused.reason, 'localhost');
});

t.test('a pinned request reaches the checked address, whatever the name', async (t) => {
  const seen: { host: string | undefined; url: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ host: req.headers.host, url: req.url });
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;

  const url = `http://receiver.invalid:${port}/hooks?x=1`;
  // `.invalid` never resolves: a fake resolver stands in for the DNS answer that was checked.
  const target = await resolveDeliveryTarget(url, sandboxPrivate, async () => [{ address: '127.0.0.1', family: 4 }]);
  if (!target.ok) throw new Error(`unexpected refusal: ${target.reason}`);

  // Record which call shape Node used (Node 20 auto-selects the family: all: true).
  const pinned = pinnedLookup(target.address, target.family);
  const shapes: boolean[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    shapes.push(options.all === true);
    pinned(hostname, options, callback);
  };
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', lookup }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('{}');
  });
  t.equal(status, 204, 'delivered to the receiver on loopback');
  t.ok(shapes.length > 0, `the pinned lookup was used (all: ${shapes.join(',')})`);

  // The other call shape, directly.
  const single = await new Promise<[string | LookupAddress[], number | undefined]>((resolve, reject) => pinned('receiver.invalid', { all: false }, (err, address, family) => (err ? reject(err) : resolve([address, family]))));
  t.same(single, ['127.0.0.1', 4]);
  const all = await new Promise<string | LookupAddress[]>((resolve, reject) => pinned('receiver.invalid', { all: true }, (err, address) => (err ? reject(err) : resolve(address))));
  t.same(all, [{ address: '127.0.0.1', family: 4 }]);

  t.same(seen, [{ host: `receiver.invalid:${port}`, url: '/hooks?x=1' }], 'the Host header keeps the URL name');
});
