/**
 * IP addresses and CIDR ranges (`10.0.0.0/8`, `::1/128`), and lists of them as settings take them
 * (`127.0.0.0/8, ::1`). Strict on input: dotted-quad IPv4 only (no `0x7f.1`), RFC 4291 IPv6 without
 * a zone, and a range's address must have no bits set past its prefix (`10.0.0.1/8` is refused:
 * it is more likely a typo than a wish for 10.0.0.0/8).
 *
 * An IPv4 address and its IPv4-mapped IPv6 form (`::ffff:a.b.c.d`, what a dual-stack socket reports
 * for an IPv4 peer) are the same address: each matches the other's ranges.
 */

export interface IpAddress {
  readonly family: 4 | 6;
  readonly value: bigint;
}

export interface Cidr {
  readonly family: 4 | 6;
  /** The range's first address. */
  readonly base: bigint;
  readonly prefix: number;
}

/** A setting's range that does not parse; the message names the entry and why. */
export class CidrSyntaxError extends Error {}

const MAPPED_V4_PREFIX = 0xffffn << 32n; // ::ffff:0:0/96

/** Strict dotted quad to its 32-bit value; null for anything else. */
export function parseIPv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** RFC 4291 text (with `::` and an optional dotted-quad tail, no zone) to its 128-bit value; null for anything else. */
export function parseIPv6(text: string): bigint | null {
  let s = text.toLowerCase();
  // A dotted-quad tail counts as two groups.
  const lastColon = s.lastIndexOf(':');
  if (lastColon === -1) return null;
  if (s.includes('.', lastColon)) {
    const tail = parseIPv4(s.slice(lastColon + 1));
    if (tail === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(tail >> 16n).toString(16)}:${(tail & 0xffffn).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const head = groupsOf(halves[0] ?? '');
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}

/** An IPv4 or IPv6 address (brackets allowed around IPv6); null when it is neither. */
export function parseIp(text: string): IpAddress | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseIPv4(bare);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIPv6(bare);
  return v6 === null ? null : { family: 6, value: v6 };
}

const bitsOf = (family: 4 | 6): 32 | 128 => (family === 4 ? 32 : 128);

/** `address/prefix`, or a bare address (a range of one: /32 or /128). Throws CidrSyntaxError. */
export function parseCidr(text: string): Cidr {
  const entry = text.trim();
  const slash = entry.indexOf('/');
  const address = parseIp(slash === -1 ? entry : entry.slice(0, slash));
  if (address === null) throw new CidrSyntaxError(`"${entry}" is not an IP address or CIDR range (like 10.0.0.0/8 or fd00::/8)`);
  const bits = bitsOf(address.family);
  const prefixText = slash === -1 ? String(bits) : entry.slice(slash + 1);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= bits)) throw new CidrSyntaxError(`"${entry}": the prefix length must be 0 to ${bits}`);
  const hostBits = BigInt(bits - prefix);
  const base = (address.value >> hostBits) << hostBits;
  if (base !== address.value) {
    throw new CidrSyntaxError(`"${entry}" has bits set past /${prefix}; the range is ${formatIp({ family: address.family, value: base })}/${prefix}`);
  }
  return { family: address.family, base: address.value, prefix };
}

/** A comma-separated list of ranges (spaces allowed, empty entries ignored). Throws CidrSyntaxError on the first bad one. */
export function parseCidrList(text: string): Cidr[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(parseCidr);
}

/** The address as the other family sees it, when it has such a form (IPv4 ↔ IPv4-mapped IPv6). */
function otherFamily(address: IpAddress): IpAddress | null {
  if (address.family === 4) return { family: 6, value: MAPPED_V4_PREFIX | address.value };
  return address.value >> 32n === 0xffffn ? { family: 4, value: address.value & 0xffff_ffffn } : null;
}

/** Whether the range holds the address (an IPv4 address and its IPv4-mapped IPv6 form alike). */
export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  const candidate = address.family === cidr.family ? address : otherFamily(address);
  if (candidate === null) return false;
  const hostBits = BigInt(bitsOf(cidr.family) - cidr.prefix);
  return candidate.value >> hostBits === cidr.base >> hostBits;
}

/** Whether any range of the list holds the address. */
export function anyCidrContains(list: readonly Cidr[], address: IpAddress): boolean {
  return list.some((cidr) => cidrContains(cidr, address));
}

/** The address in its usual text: dotted quad, or eight hex groups with the longest zero run as `::`. */
export function formatIp(address: IpAddress): string {
  if (address.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((address.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i > 1) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at === -1) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}
