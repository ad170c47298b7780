import t, { type Test } from '#tap';
import { checkEndpointUrl, isForbiddenAddress, resolveDeliveryTarget, type Resolver, type UrlPolicyOptions, type UrlRefusal } from '#packages/webhooks/url-policy.js';
import { parseCidrList } from '#packages/core/cidr.js';

const sandbox: UrlPolicyOptions = { environment: 'sandbox', allowedPrivateRanges: [] };
const live: UrlPolicyOptions = { environment: 'live', allowedPrivateRanges: [] };
/** WEBHOOK_ALLOW_PRIVATE_URLS=127.0.0.0/8,::1,10.0.0.0/8 */
const privateRanges = parseCidrList('127.0.0.0/8,::1,10.0.0.0/8');
const sandboxPrivate: UrlPolicyOptions = { environment: 'sandbox', allowedPrivateRanges: privateRanges };
const livePrivate: UrlPolicyOptions = { environment: 'live', allowedPrivateRanges: privateRanges };

/** [url, expected: 'ok' or the refusal reason, optional expected normalised href] */
type Case = readonly [url: string, expected: 'ok' | UrlRefusal, href?: string];

function runCases(t: Test, options: UrlPolicyOptions, cases: readonly Case[]): void {
  for (const [url, expected, href] of cases) {
    const result = checkEndpointUrl(url, options);
    if (expected === 'ok') {
      t.ok(result.ok, `${JSON.stringify(url)} is accepted`, { result });
      if (result.ok && href !== undefined) t.equal(result.url, href, `${JSON.stringify(url)} normalises to ${href}`);
    } else {
      t.notOk(result.ok, `${JSON.stringify(url)} is refused`, { result });
      if (!result.ok) {
        t.equal(result.reason, expected, `${JSON.stringify(url)} is refused as ${expected}`);
        t.ok(result.message.length > 0, 'with a human message');
      }
    }
  }
}

t.test('IPv4 loopback and private ranges in every spelling are refused', async (t) => {
  runCases(t, sandbox, [
    ['http://127.0.0.1/', 'private_address'],
    ['http://2130706433/', 'private_address'], // decimal
    ['http://0177.0.0.1/', 'private_address'], // octal
    ['http://0177.1/', 'private_address'], // octal, short
    ['http://0x7f.1/', 'private_address'], // hex, short
    ['http://0x7f000001/', 'private_address'], // hex, one number
    ['http://0x7f.0x0.0x0.0x1/', 'private_address'], // hex per octet
    ['http://127.1/', 'private_address'], // short form
    ['http://127.0.0.1./', 'private_address'], // trailing dot
    ['http://127.0.0.1../', 'private_address'], // two trailing dots: the parser leaves a "name"
    ['http://0x7f.1../', 'private_address'], // ditto, hex
    ['http://%31%32%37.0.0.1/', 'private_address'], // percent-encoded
    ['http://１２７.０.０.１/', 'private_address'], // full-width digits
    ['http://127.0.0.1:8080/hook', 'private_address'],
    ['http://10.0.0.1/', 'private_address'],
    ['http://167772161/', 'private_address'], // 10.0.0.1 in decimal
    ['http://012.0.0.1/', 'private_address'], // 10.0.0.1 in octal
    ['http://0xa.0.0.1/', 'private_address'], // 10.0.0.1 in hex
    ['http://172.16.0.1/', 'private_address'],
    ['http://172.31.255.255/', 'private_address'],
    ['http://192.168.1.1/', 'private_address'],
    ['http://3232235777/', 'private_address'], // 192.168.1.1 in decimal
    ['http://0xc0a80101/', 'private_address'], // 192.168.1.1 in hex
    ['http://169.254.169.254/latest/meta-data/', 'private_address'], // cloud metadata
    ['http://0xa9fea9fe/', 'private_address'], // 169.254.169.254 in hex
    ['http://100.64.0.1/', 'private_address'], // CGNAT
    ['http://100.127.255.255/', 'private_address'], // CGNAT upper edge
    ['http://0.0.0.0/', 'private_address'],
    ['http://0/', 'private_address'], // 0.0.0.0
    ['http://224.0.0.1/', 'private_address'], // multicast
    ['http://255.255.255.255/', 'private_address'], // broadcast
    ['http://240.0.0.1/', 'private_address'], // reserved
    ['http://192.0.2.1/', 'private_address'], // TEST-NET-1
    ['http://198.51.100.7/', 'private_address'], // TEST-NET-2
    ['http://203.0.113.9/', 'private_address'], // TEST-NET-3
    ['http://198.18.0.1/', 'private_address'], // benchmarking
    ['http://198.19.255.255/', 'private_address'], // benchmarking upper edge
  ]);
});

t.test('public IPv4 next to the forbidden ranges is accepted', async (t) => {
  runCases(t, sandbox, [
    ['http://100.128.0.1/', 'ok'], // just above CGNAT
    ['http://100.63.255.255/', 'ok'], // just below CGNAT
    ['http://172.15.255.255/', 'ok'], // just below 172.16/12
    ['http://172.32.0.1/', 'ok'], // just above 172.16/12
    ['http://198.20.0.1/', 'ok'], // just above 198.18/15
    ['http://11.0.0.1/', 'ok'],
    ['http://223.255.255.255/', 'ok'], // just below multicast
    ['https://93.184.216.34/', 'ok', 'https://93.184.216.34/'],
    ['https://1572395042/', 'ok', 'https://93.184.216.34/'], // public, decimal: normalised
  ]);
});

t.test('IPv6 loopback, unspecified, ULA, link-local and embedded private IPv4 are refused', async (t) => {
  runCases(t, sandbox, [
    ['http://[::1]/', 'private_address'],
    ['http://[0:0:0:0:0:0:0:1]/', 'private_address'],
    ['http://[0000:0000:0000:0000:0000:0000:0000:0001]/', 'private_address'],
    ['http://[::]/', 'private_address'],
    ['http://[::ffff:127.0.0.1]/', 'private_address'], // IPv4-mapped, dotted
    ['http://[::ffff:7f00:1]/', 'private_address'], // IPv4-mapped, hex
    ['http://[::FFFF:7F00:0001]/', 'private_address'],
    ['http://[::ffff:10.0.0.1]/', 'private_address'],
    ['http://[::ffff:169.254.169.254]/', 'private_address'],
    ['http://[::ffff:0.0.0.0]/', 'private_address'],
    ['http://[::127.0.0.1]/', 'private_address'], // IPv4-compatible (deprecated)
    ['http://[::ffff:0:7f00:1]/', 'private_address'], // SIIT IPv4-translated
    ['http://[64:ff9b::a00:1]/', 'private_address'], // NAT64 of 10.0.0.1
    ['http://[64:ff9b::127.0.0.1]/', 'private_address'], // NAT64 of 127.0.0.1, dotted
    ['http://[64:ff9b:1::a00:1]/', 'private_address'], // local-use NAT64 prefix
    ['http://[2002:7f00:1::]/', 'private_address'], // 6to4 of 127.0.0.1
    ['http://[2002:c0a8:101::1]/', 'private_address'], // 6to4 of 192.168.1.1
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'private_address'], // Teredo, client 127.0.0.1
    ['http://[fc00::1]/', 'private_address'],
    ['http://[fd12:3456::1]/', 'private_address'],
    ['http://[fe80::1]/', 'private_address'],
    ['http://[febf::1]/', 'private_address'], // link-local upper edge
    ['http://[fec0::1]/', 'private_address'], // site-local (deprecated)
    ['http://[ff02::1]/', 'private_address'], // multicast
    ['http://[2001:db8::1]/', 'private_address'], // documentation
    ['http://[100::1]/', 'private_address'], // discard-only
  ]);
});

t.test('public IPv6 is accepted, including embeddings of public IPv4', async (t) => {
  runCases(t, sandbox, [
    ['http://[2606:4700:4700::1111]/', 'ok', 'http://[2606:4700:4700::1111]/'],
    ['https://[2001:4860:4860::8888]:8443/hook', 'ok'],
    ['http://[64:ff9b::808:808]/', 'ok'], // NAT64 of 8.8.8.8
    ['http://[2002:808:808::1]/', 'ok'], // 6to4 of 8.8.8.8
    ['http://[::ffff:8.8.8.8]/', 'ok', 'http://[::ffff:808:808]/'], // mapped public
    ['http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/', 'ok'], // Teredo, client 8.8.8.8
  ]);
});

t.test('localhost names are refused in any case and with trailing dots', async (t) => {
  runCases(t, sandbox, [
    ['http://localhost/', 'localhost'],
    ['http://localhost:3000/hooks', 'localhost'],
    ['http://LOCALHOST./', 'localhost'],
    ['http://localhost../', 'localhost'],
    ['http://LocalHost/', 'localhost'],
    ['http://foo.localhost/', 'localhost'],
    ['http://foo.localhost./', 'localhost'],
    ['http://a.b.FOO.LOCALHOST./', 'localhost'],
    ['http://%6c%6fcalhost/', 'localhost'], // percent-encoded
    ['http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/', 'localhost'], // IDNA maps it to localhost
    ['http://localhost%E3%80%82/', 'localhost'], // ideographic full stop
    ['http://notlocalhost.example/', 'ok'],
    ['http://localhost.example.com/', 'ok'],
  ]);
});

t.test('userinfo is refused, including the tricks that hide the real host', async (t) => {
  runCases(t, sandbox, [
    ['http://user:pass@example.com/', 'credentials_not_allowed'],
    ['http://user@example.com/', 'credentials_not_allowed'],
    ['http://:pass@example.com/', 'credentials_not_allowed'],
    ['http://example.com@127.0.0.1/', 'credentials_not_allowed'],
    ['https://example.com:443@10.0.0.1/', 'credentials_not_allowed'],
    ['http://@example.com/', 'ok', 'http://example.com/'], // empty userinfo vanishes on parsing
  ]);
  // The fragment, not the host, holds "@example.com": the host is the loopback address.
  runCases(t, sandbox, [['http://127.0.0.1#@example.com/', 'private_address']]);
  runCases(t, sandbox, [['http://127.0.0.1?@example.com/', 'private_address']]);
});

t.test('absolute http(s) only; HTTPS in live', async (t) => {
  runCases(t, sandbox, [
    ['/hooks', 'not_absolute'],
    ['hooks/sika', 'not_absolute'],
    ['example.com/hooks', 'not_absolute'],
    ['//example.com/hooks', 'not_absolute'],
    ['', 'invalid_url'],
    ['   ', 'invalid_url'],
    ['http://', 'invalid_url'],
    ['http://exa mple.com/', 'invalid_url'],
    ['http://999.1.1.1/', 'invalid_url'],
    ['http://[fe80::1%25eth0]/', 'invalid_url'], // zone ids are not URL syntax
    [`https://example.com/${'a'.repeat(2100)}`, 'invalid_url'],
    ['ftp://example.com/', 'unsupported_scheme'],
    ['file:///etc/passwd', 'unsupported_scheme'],
    ['javascript:alert(1)', 'unsupported_scheme'],
    ['data:text/plain,hello', 'unsupported_scheme'],
    ['ws://example.com/', 'unsupported_scheme'],
    ['gopher://127.0.0.1:6379/_INFO', 'unsupported_scheme'],
    ['http://example.com', 'ok', 'http://example.com/'],
    ['HTTPS://EXAMPLE.COM/Hooks', 'ok', 'https://example.com/Hooks'],
    ['https://example.com:8443/path?q=1', 'ok', 'https://example.com:8443/path?q=1'],
    ['https://example.com:443/x', 'ok', 'https://example.com/x'],
    ['  https://example.com/  ', 'ok', 'https://example.com/'],
  ]);
  runCases(t, live, [
    ['http://example.com', 'https_required'],
    ['http://93.184.216.34/', 'https_required'],
    ['https://example.com/hooks', 'ok', 'https://example.com/hooks'],
    ['https://example.com:8443/path?q=1', 'ok'],
    ['ftp://example.com/', 'unsupported_scheme'],
    ['/hooks', 'not_absolute'],
    ['https://localhost/', 'localhost'],
    ['https://[::1]/', 'private_address'],
    ['https://user:pass@example.com/', 'credentials_not_allowed'],
  ]);
});

t.test('WEBHOOK_ALLOW_PRIVATE_URLS lifts the address rules for its ranges only, and only in sandbox', async (t) => {
  runCases(t, sandboxPrivate, [
    ['http://127.0.0.1:4000/hooks', 'ok', 'http://127.0.0.1:4000/hooks'],
    ['http://2130706433/', 'ok', 'http://127.0.0.1/'],
    ['http://[::ffff:127.0.0.1]/', 'ok'],
    ['http://localhost:4000/', 'ok'],
    ['http://foo.localhost./', 'ok'],
    ['http://[::1]:4000/', 'ok'],
    ['http://10.0.0.1/', 'ok'],
    // Outside the ranges: refused as without the setting (cloud metadata, other private networks).
    ['http://169.254.169.254/', 'private_address'],
    ['http://192.168.1.10/', 'private_address'],
    ['http://[fd00::1]/', 'private_address'],
    ['http://[64:ff9b::7f00:1]/', 'private_address'],
    // Everything else still applies.
    ['http://user:pass@127.0.0.1/', 'credentials_not_allowed'],
    ['ftp://127.0.0.1/', 'unsupported_scheme'],
    ['/hooks', 'not_absolute'],
  ]);
  // localhost names need a loopback address among the ranges.
  runCases(t, { environment: 'sandbox', allowedPrivateRanges: parseCidrList('10.0.0.0/8') }, [
    ['http://localhost:4000/', 'localhost'],
    ['http://127.0.0.1/', 'private_address'],
    ['http://10.1.2.3/', 'ok'],
  ]);
  runCases(t, livePrivate, [
    ['https://127.0.0.1/', 'private_address'],
    ['https://localhost/', 'localhost'],
    ['https://[::ffff:7f00:1]/', 'private_address'],
    ['http://127.0.0.1/', 'https_required'],
    ['https://example.com/', 'ok'],
  ]);
});

t.test('isForbiddenAddress over bare addresses in any textual form', async (t) => {
  const forbidden = [
    '127.0.0.1',
    '127.255.255.255',
    '0177.0.0.1',
    '2130706433',
    '0x7f.1',
    '127.1',
    '[127.0.0.1]',
    '10.255.255.255',
    '172.16.0.0',
    '172.31.255.255',
    '192.168.0.0',
    '169.254.0.1',
    '100.64.0.0',
    '100.127.255.255',
    '0.0.0.0',
    '0.255.255.255',
    '192.0.0.8',
    '192.88.99.1',
    '224.0.0.0',
    '239.255.255.255',
    '255.255.255.255',
    '192.0.2.0',
    '198.51.100.255',
    '203.0.113.0',
    '198.18.0.0',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:7F00:1',
    '::ffff:10.0.0.1',
    '::ffff:a00:1',
    '::127.0.0.1',
    '::ffff:0:a00:1',
    '64:ff9b::a00:1',
    '64:ff9b::192.168.0.1',
    '2002:7f00:1::',
    '2002:a00:1:1::1',
    '2002:ac10::',
    'fc00::1',
    'fd12:3456::1',
    'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    'fe80::1',
    'fe80::1%eth0',
    '[fe80::1%25eth0]',
    'fec0::1',
    'ff00::',
    'ff02::1',
    '2001:db8::1',
    '2001:db8:ffff::1',
    '3fff::1',
    '2001:2::1',
    '100::',
    '64:ff9b:1::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '::ffff:198.18.0.1',
    '1::',
    '4000::1',
  ];
  for (const ip of forbidden) t.equal(isForbiddenAddress(ip), true, `${ip} is forbidden`);

  const allowed = [
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '2000::1',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
    '3fff:1000::1',
    '2001:db9::1',
    '1.1.1.1.',
  ];
  for (const ip of allowed) t.equal(isForbiddenAddress(ip), false, `${ip} is allowed`);

  // Not an address at all: fails closed.
  for (const notIp of ['example.com', '', 'localhost', '1.2.3.4.5', '999.1.1.1', '1::2::3', 'g::1', '::1/128']) {
    t.equal(isForbiddenAddress(notIp), true, `${JSON.stringify(notIp)} (not an address) fails closed`);
  }
});

/** A resolver that records what it was asked and never touches the network. */
function fakeResolver(answers: Record<string, { address: string; family: number }[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolver = async (host: string) => {
    asked.push(host);
    const found = answers[host];
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };
  return Object.assign(resolver, { asked });
}

t.test('resolveDeliveryTarget: DNS rebinding is refused at delivery time', async (t) => {
  const lookup = fakeResolver({
    'public.example': [{ address: '93.184.216.34', family: 4 }],
    'public6.example': [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '1.1.1.1', family: 4 },
    ],
    'rebind.example': [{ address: '127.0.0.1', family: 4 }],
    'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    'mapped.example': [{ address: '::ffff:10.0.0.1', family: 6 }],
    'mixed.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
    'mixed6.example': [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: 'fd00::1', family: 6 },
    ],
    'garbage.example': [{ address: 'not-an-ip', family: 4 }],
    'empty.example': [],
    localhost: [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ],
  });

  t.same(await resolveDeliveryTarget('https://public.example/hooks', live, lookup), {
    ok: true,
    address: '93.184.216.34',
    family: 4,
  });
  t.same(
    await resolveDeliveryTarget('https://public6.example/', live, lookup),
    {
      ok: true,
      address: '2606:4700:4700::1111',
      family: 6,
    },
    'the first answer, in resolver order',
  );

  for (const host of ['rebind.example', 'metadata.example', 'mapped.example', 'mixed.example', 'mixed6.example']) {
    const result = await resolveDeliveryTarget(`https://${host}/`, live, lookup);
    t.equal(result.ok, false, `${host} is refused`);
    if (!result.ok) t.equal(result.reason, 'private_address');
  }
  const garbage = await resolveDeliveryTarget('https://garbage.example/', live, lookup);
  t.equal(garbage.ok ? 'ok' : garbage.reason, 'private_address', 'an answer that is not an IP fails closed');

  // Resolution failures are errors for the dispatcher to record and retry, not refusals.
  await t.rejects(resolveDeliveryTarget('https://missing.example/', live, lookup), { code: 'ENOTFOUND' });
  await t.rejects(resolveDeliveryTarget('https://empty.example/', live, lookup), { code: 'ENOTFOUND' });

  // The name is resolved as the URL spells it: a trailing dot (fully qualified) is kept, so no
  // search domain can be appended to it.
  const dotted = fakeResolver({ 'public.example.': [{ address: '93.184.216.34', family: 4 }] });
  t.same(await resolveDeliveryTarget('https://public.example./', live, dotted), { ok: true, address: '93.184.216.34', family: 4 });
  t.same(dotted.asked, ['public.example.']);
});

t.test('resolveDeliveryTarget: IP literals are checked without a lookup', async (t) => {
  const lookup = fakeResolver({});
  t.same(await resolveDeliveryTarget('https://93.184.216.34/hooks', live, lookup), { ok: true, address: '93.184.216.34', family: 4 });
  t.same(await resolveDeliveryTarget('https://1572395042/', live, lookup), { ok: true, address: '93.184.216.34', family: 4 });
  t.same(await resolveDeliveryTarget('http://[2606:4700:4700::1111]:8080/', sandbox, lookup), {
    ok: true,
    address: '2606:4700:4700::1111',
    family: 6,
  });
  const refused = await resolveDeliveryTarget('http://0x7f.1/', sandbox, lookup);
  t.equal(refused.ok ? 'ok' : refused.reason, 'private_address');
  t.same(lookup.asked, [], 'the resolver was never called');
});

t.test('resolveDeliveryTarget re-applies the registration rules', async (t) => {
  const lookup = fakeResolver({ 'public.example': [{ address: '93.184.216.34', family: 4 }] });
  const cases: [string, UrlPolicyOptions, UrlRefusal][] = [
    ['http://public.example/', live, 'https_required'],
    ['ftp://public.example/', sandbox, 'unsupported_scheme'],
    ['https://u:p@public.example/', live, 'credentials_not_allowed'],
    ['https://localhost/', live, 'localhost'],
    ['https://foo.localhost./', live, 'localhost'],
    ['/hooks', live, 'not_absolute'],
  ];
  for (const [url, options, reason] of cases) {
    const result = await resolveDeliveryTarget(url, options, lookup);
    t.equal(result.ok ? 'ok' : result.reason, reason, `${url} → ${reason}`);
  }
  t.same(lookup.asked, [], 'nothing refused by the URL rules is looked up');
});

t.test('resolveDeliveryTarget with WEBHOOK_ALLOW_PRIVATE_URLS', async (t) => {
  const lookup = fakeResolver({
    localhost: [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ],
    'rebind.example': [{ address: '10.0.0.1', family: 4 }],
    'metadata.example': [
      { address: '10.0.0.1', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ],
  });
  t.same(await resolveDeliveryTarget('http://localhost:4000/hooks', sandboxPrivate, lookup), {
    ok: true,
    address: '127.0.0.1',
    family: 4,
  });
  t.same(await resolveDeliveryTarget('http://rebind.example/', sandboxPrivate, lookup), { ok: true, address: '10.0.0.1', family: 4 });
  t.same(await resolveDeliveryTarget('http://[::1]:4000/', sandboxPrivate, lookup), { ok: true, address: '::1', family: 6 });
  // One address outside the ranges refuses the name, as any forbidden address does.
  const outside = await resolveDeliveryTarget('http://metadata.example/', sandboxPrivate, lookup);
  t.equal(outside.ok ? 'ok' : outside.reason, 'private_address');

  // Live ignores the switch.
  const liveLocal = await resolveDeliveryTarget('https://localhost/', livePrivate, lookup);
  t.equal(liveLocal.ok ? 'ok' : liveLocal.reason, 'localhost');
  const liveRebind = await resolveDeliveryTarget('https://rebind.example/', livePrivate, lookup);
  t.equal(liveRebind.ok ? 'ok' : liveRebind.reason, 'private_address');
  // Sandbox without the switch refuses.
  const sandboxRebind = await resolveDeliveryTarget('http://rebind.example/', sandbox, lookup);
  t.equal(sandboxRebind.ok ? 'ok' : sandboxRebind.reason, 'private_address');
});
