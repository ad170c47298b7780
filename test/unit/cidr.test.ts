import t from '#tap';
import { anyCidrContains, cidrContains, CidrSyntaxError, formatIp, parseCidr, parseCidrList, parseIp } from '#packages/core/cidr.js';

const ip = (text: string) => {
  const address = parseIp(text);
  if (address === null) throw new Error(`not an address: ${text}`);
  return address;
};

t.test('addresses: strict dotted quads and RFC 4291 IPv6, brackets allowed', async (t) => {
  t.same(parseIp('10.1.2.3'), { family: 4, value: 0x0a010203n });
  t.same(parseIp('[::1]'), { family: 6, value: 1n });
  t.same(parseIp('::ffff:127.0.0.1'), { family: 6, value: 0xffff_7f00_0001n });
  for (const bad of ['0x7f.1', '127.1', '256.0.0.1', '1.2.3.4.5', 'fe80::1%eth0', '1::2::3', 'localhost', '', '::g']) t.equal(parseIp(bad), null, bad);
  t.equal(formatIp(ip('2001:db8:0:0:1:0:0:1')), '2001:db8::1:0:0:1', 'the longest run of zeros becomes ::');
  t.equal(formatIp(ip('::')), '::');
  t.equal(formatIp(ip('192.168.0.1')), '192.168.0.1');
});

t.test('ranges: a prefix, or a bare address as a range of one', async (t) => {
  t.same(parseCidr('10.0.0.0/8'), { family: 4, base: 0x0a00_0000n, prefix: 8 });
  t.same(parseCidr(' ::1 '), { family: 6, base: 1n, prefix: 128 });
  t.same(parseCidr('0.0.0.0/0'), { family: 4, base: 0n, prefix: 0 });
  t.throws(() => parseCidr('10.0.0.1/8'), new CidrSyntaxError('"10.0.0.1/8" has bits set past /8; the range is 10.0.0.0/8'));
  t.throws(() => parseCidr('10.0.0.0/33'), /prefix length must be 0 to 32/);
  t.throws(() => parseCidr('fd00::/129'), /prefix length must be 0 to 128/);
  t.throws(() => parseCidr('10.0.0.0/'), /prefix length/);
  t.throws(() => parseCidr('10.0.0.0/+8'), /prefix length/);
  t.throws(() => parseCidr('true'), /"true" is not an IP address or CIDR range/);
});

t.test('lists: comma-separated, spaces and empty entries ignored; the first bad entry is named', async (t) => {
  t.same(parseCidrList(''), []);
  t.same(parseCidrList(' 127.0.0.0/8 , ::1,, '), [parseCidr('127.0.0.0/8'), parseCidr('::1/128')]);
  t.throws(() => parseCidrList('127.0.0.0/8, 10.0.0.0/88'), /"10.0.0.0\/88"/);
});

t.test('matching: by prefix; an IPv4 address and its IPv4-mapped IPv6 form alike', async (t) => {
  const loopback = parseCidr('127.0.0.0/8');
  t.ok(cidrContains(loopback, ip('127.255.0.1')));
  t.notOk(cidrContains(loopback, ip('128.0.0.1')));
  t.ok(cidrContains(loopback, ip('::ffff:127.0.0.1')), 'a dual-stack socket’s IPv4 peer');
  t.notOk(cidrContains(loopback, ip('::1')), 'IPv6 loopback is not IPv4 loopback');
  t.notOk(cidrContains(loopback, ip('64:ff9b::7f00:1')), 'only the mapped form stands for the IPv4 address');
  t.ok(cidrContains(parseCidr('::ffff:10.0.0.0/104'), ip('10.9.9.9')), 'an IPv4 address in a mapped IPv6 range');
  t.ok(cidrContains(parseCidr('fd00::/8'), ip('fd12:3456::1')));
  t.notOk(cidrContains(parseCidr('fd00::/8'), ip('fe80::1')));
  t.ok(cidrContains(parseCidr('0.0.0.0/0'), ip('8.8.8.8')));
  const list = parseCidrList('10.0.0.0/8, ::1');
  t.ok(anyCidrContains(list, ip('::1')));
  t.ok(anyCidrContains(list, ip('10.0.0.1')));
  t.notOk(anyCidrContains(list, ip('192.168.1.1')));
  t.notOk(anyCidrContains([], ip('10.0.0.1')));
});
