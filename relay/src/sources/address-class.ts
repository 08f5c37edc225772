// What an address is, for where a source's requests may go: the IANA special-purpose
// ranges, by hand rather than a library's, so the one table runs on every runtime the relay does;
// relay/test/source-address-policy.test.ts holds it to Node's own BlockList.

/** What a host name or address is, for where requests may go: only `public` (and a `name` that resolves to one) leaves the relay's network. */
export type AddressClass =
  | 'public'
  | 'name'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'ipv4-mapped'
  | 'unspecified'
  | 'reserved';

/** IPv4 ranges that are not the public Internet (IANA special-purpose registry), as [first address, prefix length, class]. */
const IPV4_RANGES: ReadonlyArray<readonly [string, number, AddressClass]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'reserved'],
  ['240.0.0.0', 4, 'reserved'],
];
/** The same for IPv6: mapped, translated and tunnelled IPv4 among them, since each can reach an IPv4 address. */
const IPV6_RANGES: ReadonlyArray<readonly [string, number, AddressClass]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, 'ipv4-mapped'],
  ['::', 96, 'reserved'],
  ['64:ff9b::', 96, 'reserved'],
  ['64:ff9b:1::', 48, 'reserved'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  ['2002::', 16, 'reserved'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'reserved'],
  ['ff00::', 8, 'reserved'],
];

/**
 * What a host is: a URL's `hostname` (WHATWG parsing already wrote `127.1`, `2130706433` and
 * `0x7f000001` as `127.0.0.1`, and IPv6 in brackets) or an address a resolver answered. `localhost`
 * and its subdomains are loopback by name (RFC 6761); any other name is a `name`, to be resolved.
 */
export function classifyHost(host: string): AddressClass {
  const bare = host
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost') || bare === 'localhost.') return 'loopback';
  const v4 = ipv4Number(bare);
  if (v4 !== null) return classIn(IPV4_RANGES, BigInt(v4), 32, ipv4Number);
  const v6 = bare.includes(':') ? ipv6Number(bare) : null;
  if (v6 !== null) return classIn(IPV6_RANGES, v6, 128, ipv6Number);
  return 'name';
}

function classIn(
  ranges: ReadonlyArray<readonly [string, number, AddressClass]>,
  address: bigint,
  bits: number,
  parse: (text: string) => bigint | number | null,
): AddressClass {
  for (const [first, prefix, kind] of ranges) {
    const shift = BigInt(bits - prefix);
    if (address >> shift === BigInt(parse(first)!) >> shift) return kind;
  }
  return 'public';
}

/** Dotted IPv4 as one number; null for anything else (a resolver's answers and WHATWG's hosts are dotted). */
function ipv4Number(text: string): number | null {
  const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!parts) return null;
  const bytes = parts.slice(1).map(Number);
  return bytes.some((byte) => byte > 255) ? null : bytes.reduce((sum, byte) => sum * 256 + byte, 0);
}

/** IPv6 text as one 128-bit number, through WHATWG's own parser (dotted tails, case, zeros); null when it is none. */
function ipv6Number(text: string): bigint | null {
  let canonical: string;
  try {
    canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head = '', tail] = canonical.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((sum, group) => (sum << 16n) + BigInt(Number.parseInt(group, 16)), 0n);
}
