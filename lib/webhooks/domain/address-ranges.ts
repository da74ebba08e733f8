import { isIP } from 'node:net';

/**
 * Which IP addresses a webhook may connect to (docs/webhooks.md "Verifying deliveries", address
 * rules): only globally reachable unicast. Everything else would let a tenant make this service
 * call into its own network, a cloud metadata service, or another tenant's loopback. The tables
 * follow the IANA special-purpose address registries; IPv6 forms that carry an IPv4 address
 * (mapped, NAT64, 6to4) are judged by that IPv4 address, since that is where the packet goes.
 */

interface Range {
  readonly base: bigint;
  readonly prefix: number;
  readonly reason: string;
}

const V4_BITS = 32;
const V6_BITS = 128;

const V4_RANGES: readonly Range[] = [
  v4('169.254.169.254/32', 'cloud metadata'),
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'carrier-grade NAT'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', '6to4 relay anycast'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('255.255.255.255/32', 'broadcast'),
  v4('240.0.0.0/4', 'reserved'),
];

/** Checked in order; the first match decides. */
const V6_RANGES: readonly Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::ffff:0:0:0/96', 'IPv4-translated'),
  // ::a.b.c.d, deprecated since 2006: no network routes it, whatever the IPv4 address.
  v6('::/96', 'IPv4-compatible'),
  v6('64:ff9b:1::/48', 'local-use NAT64'),
  v6('100::/64', 'discard-only'),
  v6('2001::/32', 'Teredo'),
  v6('2001:2::/48', 'benchmarking'),
  v6('2001:10::/28', 'ORCHID'),
  v6('2001:20::/28', 'ORCHIDv2'),
  v6('2001:db8::/32', 'documentation'),
  v6('3fff::/20', 'documentation'),
  v6('fd00:ec2::254/128', 'cloud metadata'),
  v6('fc00::/7', 'unique-local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
];

/** Where an IPv6 address carries an IPv4 one: the prefix and the bit offset of the IPv4 address. */
const V4_CARRIERS: ReadonlyArray<Range & { v4Offset: number }> = [
  { ...v6('::ffff:0:0/96', 'IPv4-mapped'), v4Offset: 96 },
  { ...v6('64:ff9b::/96', 'NAT64'), v4Offset: 96 },
  { ...v6('2002::/16', '6to4'), v4Offset: 16 },
];

/** Global unicast; anything outside it (and outside the carriers) is reserved by IANA. */
const V6_GLOBAL_UNICAST = v6('2000::/3', 'global unicast');

/**
 * Why `address` is not a public address, or null when it is. `address` is an IP address in any
 * spelling a URL parser accepts (dotted, integer, octal, hex, short IPv4; IPv6 with or without
 * brackets); anything else (a host name, a zone-scoped IPv6 address) is refused.
 */
export function nonPublicReason(address: string): string | null {
  const parsed = parseAddress(address);
  if (!parsed) return 'not an IP address';
  return parsed.version === 4 ? v4Reason(parsed.value) : v6Reason(parsed.value);
}

function v4Reason(value: bigint): string | null {
  return V4_RANGES.find((range) => within(value, range, V4_BITS))?.reason ?? null;
}

function v6Reason(value: bigint): string | null {
  for (const carrier of V4_CARRIERS) {
    if (!within(value, carrier, V6_BITS)) continue;
    const embedded = (value >> BigInt(V6_BITS - carrier.v4Offset - V4_BITS)) & 0xffff_ffffn;
    const reason = v4Reason(embedded);
    return reason === null ? null : `${carrier.reason} form of ${v4Text(embedded)} (${reason})`;
  }
  const listed = V6_RANGES.find((range) => within(value, range, V6_BITS));
  if (listed) return listed.reason;
  return within(value, V6_GLOBAL_UNICAST, V6_BITS) ? null : 'reserved';
}

function within(value: bigint, range: Range, bits: number): boolean {
  const shift = BigInt(bits - range.prefix);
  return value >> shift === range.base >> shift;
}

type ParsedAddress = { version: 4 | 6; value: bigint };

/** Only the characters of an IPv4 address in some base; keeps `x@8.8.8.8` from parsing as 8.8.8.8. */
const LOOSE_V4 = /^[0-9a-fx.]+$/iu;

function parseAddress(address: string): ParsedAddress | undefined {
  const bracketed = address.startsWith('[') && address.endsWith(']');
  const text = bracketed ? address.slice(1, -1) : address;
  // A zone (fe80::1%eth0) scopes the address to one link: never public. Brackets wrap only IPv6.
  if (text.includes('%') || (bracketed && isIP(text) !== 6)) return undefined;
  if (isIP(text) === 4) return { version: 4, value: v4Value(text) };
  if (isIP(text) === 6) {
    const canonical = hostnameOf(`[${text}]`);
    return canonical === undefined ? undefined : { version: 6, value: v6Value(canonical.slice(1, -1)) };
  }
  if (!LOOSE_V4.test(text)) return undefined;
  // 2130706433, 0x7f.1, 017700000001: whatever the URL parser turns into an IPv4 address.
  const normalised = hostnameOf(text);
  return normalised !== undefined && isIP(normalised) === 4 ? { version: 4, value: v4Value(normalised) } : undefined;
}

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

function v4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function v4Value(dotted: string): bigint {
  return dotted.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** `canonical` is the URL parser's serialisation: lower-case hex groups, at most one `::`, no dotted tail. */
function v6Value(canonical: string): bigint {
  const [head = '', tail] = canonical.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function v4(cidr: string, reason: string): Range {
  const [address = '', prefix = ''] = cidr.split('/');
  return { base: v4Value(address), prefix: Number(prefix), reason };
}

function v6(cidr: string, reason: string): Range {
  const [address = '', prefix = ''] = cidr.split('/');
  return { base: v6Value(hostnameOf(`[${address}]`)!.slice(1, -1)), prefix: Number(prefix), reason };
}
