/**
 * Webhook endpoint URL policy (docs/webhooks.md, endpoint URLs).
 *
 * - Registration time: `checkEndpointUrl` accepts absolute http(s) URLs only, HTTPS only in live,
 *   no userinfo, and refuses localhost, `*.localhost` and every forbidden IP literal in any
 *   spelling (the WHATWG parser canonicalises decimal/octal/hex/short IPv4 and IPv6 forms; trailing
 *   dots are stripped and the host re-canonicalised so `127.0.0.1..` or `0x7f.1.` are caught too).
 * - Delivery time: `resolveDeliveryTarget` re-runs that check, resolves the name, refuses when ANY
 *   resolved address is forbidden (DNS rebinding) and returns the address to connect to; pin the
 *   connection to it with `pinnedLookup` so no second, unchecked resolution happens.
 *
 * `allowedPrivateRanges` (WEBHOOK_ALLOW_PRIVATE_URLS) lifts the address rules for the addresses of
 * those ranges only, and only in sandbox; live ignores them. `localhost` names are allowed when the
 * ranges hold a loopback address (127.0.0.1 or ::1); what they resolve to is checked at delivery.
 *
 * This module never refuses: callers map a refusal reason to their error code.
 */
import dns from 'node:dns';
import net from 'node:net';
import { anyCidrContains, cidrContains, parseCidr, parseIp, parseIPv4, parseIPv6, type Cidr } from '#packages/core/cidr.js';

export type UrlRefusal = 'invalid_url' | 'not_absolute' | 'unsupported_scheme' | 'https_required' | 'credentials_not_allowed' | 'private_address' | 'localhost';

export interface UrlPolicyOptions {
  environment: 'sandbox' | 'live';
  /** WEBHOOK_ALLOW_PRIVATE_URLS: the otherwise refused addresses that may be reached, in sandbox only. */
  allowedPrivateRanges: readonly Cidr[];
}

export type UrlCheckResult = { ok: true; url: string } | { ok: false; reason: UrlRefusal; message: string };

export type DeliveryTargetResult = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: UrlRefusal; message: string };

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/** Longest URL accepted; far above any real endpoint, keeps stored rows and logs bounded. */
export const MAX_URL_LENGTH = 2048;

// ---------------------------------------------------------------------------------------------
// Address classification
// ---------------------------------------------------------------------------------------------

/** IPv4 ranges never contacted (IANA special-purpose registry, minus nothing we would deliver to). */
const FORBIDDEN_V4: readonly Cidr[] = [
  parseCidr('0.0.0.0/8'), // "this network", unspecified
  parseCidr('10.0.0.0/8'), // private
  parseCidr('100.64.0.0/10'), // CGNAT shared address space
  parseCidr('127.0.0.0/8'), // loopback
  parseCidr('169.254.0.0/16'), // link-local (cloud metadata lives here)
  parseCidr('172.16.0.0/12'), // private
  parseCidr('192.0.0.0/24'), // IETF protocol assignments
  parseCidr('192.0.2.0/24'), // TEST-NET-1
  parseCidr('192.88.99.0/24'), // deprecated 6to4 relay anycast
  parseCidr('192.168.0.0/16'), // private
  parseCidr('198.18.0.0/15'), // benchmarking
  parseCidr('198.51.100.0/24'), // TEST-NET-2
  parseCidr('203.0.113.0/24'), // TEST-NET-3
  parseCidr('224.0.0.0/4'), // multicast
  parseCidr('240.0.0.0/4'), // reserved, includes 255.255.255.255 broadcast
];

/**
 * IPv6 ranges inside global unicast 2000::/3 that are still never contacted. Everything outside
 * 2000::/3 is refused outright (loopback, unspecified, ULA fc00::/7, link-local fe80::/10,
 * site-local fec0::/10, multicast ff00::/8, discard 100::/64, local-use NAT64 64:ff9b:1::/48, …),
 * after the forms that embed an IPv4 address have been judged by that address.
 */
const FORBIDDEN_V6_IN_GLOBAL: readonly Cidr[] = [
  parseCidr('2001:2::/48'), // benchmarking
  parseCidr('2001:10::/28'), // ORCHID (deprecated), not routable
  parseCidr('2001:20::/28'), // ORCHIDv2 identifiers, not routable
  parseCidr('2001:db8::/32'), // documentation
  parseCidr('3fff::/20'), // documentation (RFC 9637)
];

const GLOBAL_UNICAST_V6 = parseCidr('2000::/3');
const MAPPED_V6 = parseCidr('::ffff:0:0/96'); // IPv4-mapped ::ffff:a.b.c.d
const COMPAT_V6 = parseCidr('::/96'); // IPv4-compatible ::a.b.c.d (deprecated); also holds :: and ::1
const TRANSLATED_V6 = parseCidr('::ffff:0:0:0/96'); // SIIT IPv4-translated ::ffff:0:a.b.c.d
const NAT64_V6 = parseCidr('64:ff9b::/96'); // NAT64 well-known prefix
const SIX_TO_FOUR_V6 = parseCidr('2002::/16'); // 6to4: 2002:AABB:CCDD::/48 embeds AA.BB.CC.DD
const TEREDO_V6 = parseCidr('2001::/32'); // Teredo: server v4 in bits 32-63, client v4 XOR-ed in the low 32

function isForbiddenV4(value: bigint): boolean {
  return FORBIDDEN_V4.some((range) => cidrContains(range, { family: 4, value }));
}

function isForbiddenV6(value: bigint): boolean {
  const low32 = value & 0xffff_ffffn;
  const address = { family: 6, value } as const;
  // Forms that carry an IPv4 address are judged by it (::ffff:7f00:1 is 127.0.0.1; :: and ::1,
  // being in ::/96, are 0.0.0.0 and 0.0.0.1, both in 0.0.0.0/8).
  if (cidrContains(MAPPED_V6, address) || cidrContains(COMPAT_V6, address)) return isForbiddenV4(low32);
  if (cidrContains(TRANSLATED_V6, address) || cidrContains(NAT64_V6, address)) return isForbiddenV4(low32);
  if (!cidrContains(GLOBAL_UNICAST_V6, address)) return true;
  if (cidrContains(SIX_TO_FOUR_V6, address)) return isForbiddenV4((value >> 80n) & 0xffff_ffffn);
  if (cidrContains(TEREDO_V6, address)) {
    return isForbiddenV4((value >> 64n) & 0xffff_ffffn) || isForbiddenV4(low32 ^ 0xffff_ffffn);
  }
  return FORBIDDEN_V6_IN_GLOBAL.some((range) => cidrContains(range, address));
}

/** Brackets, an IPv6 zone (`%eth0`, `%25eth0`) and trailing dots removed. */
function bareHost(host: string): string {
  let h = host.trim();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  const zone = h.indexOf('%');
  if (zone !== -1 && h.includes(':')) h = h.slice(0, zone);
  return h.replace(/\.+$/, '');
}

/**
 * The host in the form the WHATWG URL parser gives it (IPv4 in every spelling → dotted quad, IPv6 →
 * compressed, names → lower-case ASCII), bare (see `bareHost`); repeated until stable so that a
 * stripped trailing dot cannot hide a numeric spelling (`0x7f.1..`). null when it does not parse.
 */
function canonicalHost(host: string): string | null {
  let current = bareHost(host);
  for (let i = 0; i < 4; i++) {
    let parsed: string;
    try {
      parsed = new URL(`http://${net.isIPv6(current) ? `[${current}]` : current}/`).hostname;
    } catch {
      return null;
    }
    const next = bareHost(parsed);
    if (next === current) return current;
    current = next;
  }
  return current;
}

/**
 * True when an IP address must never be contacted: loopback, private, link-local, CGNAT,
 * unspecified, IPv6 ULA/site-local, multicast, broadcast, reserved, documentation and benchmarking
 * ranges, anything in IPv6 outside global unicast 2000::/3, and the IPv6 forms that embed such an
 * IPv4 address (mapped, compatible, SIIT-translated, NAT64 64:ff9b::/96, 6to4, Teredo).
 *
 * Accepts any textual form: brackets, zone ids, trailing dots, and IPv4 in decimal/octal/hex/short
 * spellings. Input that is not an IP address at all fails closed (true): a name cannot be vouched
 * for without resolving it.
 */
export function isForbiddenAddress(ip: string): boolean {
  let host = bareHost(ip);
  if (net.isIP(host) === 0) {
    // Only numeric-looking text is canonicalised; anything else is not an address.
    if (!/^[0-9a-fx.:]+$/i.test(host)) return true;
    const canonical = canonicalHost(host);
    if (canonical === null) return true;
    host = canonical;
  }
  const family = net.isIP(host);
  if (family === 4) {
    const value = parseIPv4(host);
    return value === null || isForbiddenV4(value);
  }
  if (family === 6) {
    const value = parseIPv6(host);
    return value === null || isForbiddenV6(value);
  }
  return true;
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Whether WEBHOOK_ALLOW_PRIVATE_URLS opens this (bare, canonical) address: in sandbox, an address of its ranges. */
function privateAllowed(address: string, options: UrlPolicyOptions): boolean {
  if (options.environment !== 'sandbox') return false;
  const ip = parseIp(address);
  return ip !== null && anyCidrContains(options.allowedPrivateRanges, ip);
}

/** A `localhost` name is reached on loopback: allowed when the ranges open a loopback address. */
function localhostAllowed(options: UrlPolicyOptions): boolean {
  return privateAllowed('127.0.0.1', options) || privateAllowed('::1', options);
}

function refuse(reason: UrlRefusal, message: string): { ok: false; reason: UrlRefusal; message: string } {
  return { ok: false, reason, message };
}

// ---------------------------------------------------------------------------------------------
// Registration time
// ---------------------------------------------------------------------------------------------

interface ParsedEndpoint {
  url: URL;
  /** Canonical bare host: no brackets, no trailing dots, IPv4 as a dotted quad. */
  host: string;
}

function parseEndpoint(raw: string, options: UrlPolicyOptions): { ok: true; value: ParsedEndpoint } | ReturnType<typeof refuse> {
  if (typeof raw !== 'string' || raw.trim() === '') return refuse('invalid_url', 'The URL is empty');
  if (raw.length > MAX_URL_LENGTH) return refuse('invalid_url', `The URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    try {
      new URL(raw, 'https://base.invalid/');
    } catch {
      return refuse('invalid_url', 'The URL could not be parsed');
    }
    return refuse('not_absolute', 'The URL must be absolute, with a scheme and a host (https://…)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse('unsupported_scheme', `The URL scheme must be https or http (sandbox only), not ${url.protocol.slice(0, -1)}`);
  }
  if (url.protocol === 'http:' && options.environment === 'live') {
    return refuse('https_required', 'Live webhook endpoints must use HTTPS');
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('credentials_not_allowed', 'The URL must not contain a user name or password');
  }
  const host = canonicalHost(url.hostname);
  if (host === null || host === '') return refuse('invalid_url', 'The URL has no valid host');
  if (isLocalhostName(host) && !localhostAllowed(options)) return refuse('localhost', 'The URL must not point to localhost');
  if (net.isIP(host) !== 0 && isForbiddenAddress(host) && !privateAllowed(host, options)) {
    return refuse('private_address', 'The URL must not point to a loopback, private, link-local or reserved address');
  }
  return { ok: true, value: { url, host } };
}

/**
 * Registration-time check of a webhook endpoint URL. Returns the normalised URL (WHATWG href) or
 * the reason it is refused, with a human message. Names are not resolved here (the service does
 * not contact the URL at registration); `resolveDeliveryTarget` checks what they resolve to.
 */
export function checkEndpointUrl(raw: string, options: UrlPolicyOptions): UrlCheckResult {
  const parsed = parseEndpoint(raw, options);
  return parsed.ok ? { ok: true, url: parsed.value.url.href } : parsed;
}

// ---------------------------------------------------------------------------------------------
// Delivery time
// ---------------------------------------------------------------------------------------------

const systemResolver: Resolver = async (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * Delivery-time check (DNS rebinding): re-applies `checkEndpointUrl`, resolves the host (default
 * `dns.promises.lookup` with `all: true`), refuses when ANY resolved address is forbidden (unless
 * its allowed private ranges hold it, in sandbox), and returns the first address in resolver order, so the caller pins the
 * connection to what was checked (see `pinnedLookup`). An IP-literal host is not looked up.
 *
 * A resolution failure is not a policy refusal: the resolver's error is rethrown (an empty answer
 * becomes an ENOTFOUND error) so the dispatcher records a failed, retryable attempt.
 */
export async function resolveDeliveryTarget(url: string, options: UrlPolicyOptions, lookup: Resolver = systemResolver): Promise<DeliveryTargetResult> {
  const parsed = parseEndpoint(url, options);
  if (!parsed.ok) return parsed;
  const { host, url: parsedUrl } = parsed.value;

  const literal = net.isIP(host);
  if (literal === 4 || literal === 6) return { ok: true, address: host, family: literal };

  // Resolve the name as the URL spells it: a trailing dot keeps it fully qualified, so the
  // resolver's search list is never appended.
  const answers = await lookup(parsedUrl.hostname);
  if (answers.length === 0) {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', hostname: host });
  }
  let chosen: { address: string; family: 4 | 6 } | null = null;
  for (const answer of answers) {
    const address = bareHost(answer.address);
    const family = net.isIP(address);
    if (family !== 4 && family !== 6) {
      return refuse('private_address', `The name ${host} resolved to something that is not an IP address`);
    }
    if (isForbiddenAddress(address) && !privateAllowed(address, options)) {
      return refuse('private_address', `The name ${host} resolves to a loopback, private, link-local or reserved address`);
    }
    chosen ??= { address, family };
  }
  if (chosen === null) throw new Error('unreachable: non-empty answer list produced no address');
  return { ok: true, ...chosen };
}

/**
 * A `lookup` for `http.request` / `https.request` / `net.connect` that always answers the address
 * `resolveDeliveryTarget` checked, so the socket goes where the check looked while the Host header,
 * TLS SNI and certificate verification keep using the URL's name. Handles both call shapes Node
 * uses (`all: true` when happy-eyeballs family auto-selection is on, a single address otherwise).
 */
export function pinnedLookup(address: string, family: 4 | 6): net.LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
