// @vitest-environment node
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BlockList } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AddressClass, classifyHost } from '../src/sources/address-class.js';
import { sourceAddressFetch, sourceAddressLookup } from '../src/sources/source-address-lookup.js';
import { RefusalLog, SourceAddressPolicy } from '../src/sources/source-address-policy.js';

/**
 * Issue 35 finding 1, the address policy itself: the classifier (hosts as WHATWG URL parsing
 * writes them, and resolvers' answers), and the connect-time check on Node with a fake resolver.
 * Nothing here connects anywhere but loopback: public answers are checked without a connection.
 */

describe('the address classifier, through new URL', () => {
  it.each([
    ['http://127.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://localhost:8080/', 'loopback'],
    ['http://api.localhost/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'ipv4-mapped'],
    ['http://[::ffff:a9fe:a9fe]/', 'ipv4-mapped'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://169.254.169.254/', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[febf:ffff::1]/', 'link-local'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://[fdff:ffff::1]/', 'unique-local'],
    ['http://10.0.0.1/', 'private'],
    ['http://10.255.255.255/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.255/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://100.64.0.1/', 'private'],
    ['http://100.127.255.255/', 'private'],
    ['http://[64:ff9b::7f00:1]/', 'reserved'],
    ['http://[2002:7f00:1::]/', 'reserved'],
    ['http://224.0.0.1/', 'reserved'],
    ['http://255.255.255.255/', 'reserved'],
    ['http://172.32.0.1/', 'public'],
    ['http://100.128.0.1/', 'public'],
    ['http://8.8.8.8/', 'public'],
    ['http://[2606:4700::1111]/', 'public'],
    ['http://[fe00::1]/', 'public'],
    ['https://plausible.io/', 'name'],
    ['https://127.0.0.1.nip.io/', 'name'],
  ] as Array<[string, AddressClass]>)('%s is %s', (url, expected) => {
    expect(classifyHost(new URL(url).hostname)).toBe(expected);
  });

  // Node's own BlockList, filled from the IANA special-purpose registries, is the oracle.
  // One list per family: Node matches an IPv4 address against IPv6 rules such as ::ffff:0:0/96 too.
  const inside = { ipv4: new BlockList(), ipv6: new BlockList() };
  for (const [first, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.88.99.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const)
    inside.ipv4.addSubnet(first, prefix, 'ipv4');
  for (const [first, prefix] of [
    ['::', 96],
    ['::ffff:0:0', 96],
    ['64:ff9b::', 96],
    ['64:ff9b:1::', 48],
    ['100::', 64],
    ['2001::', 23],
    ['2001:db8::', 32],
    ['2002::', 16],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
  ] as const)
    inside.ipv6.addSubnet(first, prefix, 'ipv6');

  it('agrees with a BlockList of the special-purpose ranges on any IPv4 or IPv6 address, however written', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (address) => {
        const family = address.includes(':') ? 'ipv6' : 'ipv4';
        const host = new URL(`http://${family === 'ipv6' ? `[${address}]` : address}/`).hostname;
        const expected = inside[family].check(address, family) ? 'not public' : 'public';
        expect(classifyHost(host) === 'public' ? 'public' : 'not public').toBe(expected);
        // A resolver writes the address plainly: the same verdict.
        expect(classifyHost(address) === 'public' ? 'public' : 'not public').toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('the connect-time check on Node, with a fake resolver', () => {
  let server: Server;
  let port = 0;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      requests += 1;
      response.setHeader('Content-Type', 'application/json');
      response.end('{"visitors":7}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Every name resolves where the table says; a name not in it is unknown. */
  const fakeDns = (table: Record<string, string>) => async (hostname: string) => {
    const address = table[hostname];
    if (address === undefined) throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };

  it('refuses a name that now resolves to this machine, sends nothing, and logs it once a minute; a listed name connects', async () => {
    const lines: string[] = [];
    const refusals = new RefusalLog((line) => lines.push(line));
    const dns = fakeDns({ 'matomo.rebound.example': '127.0.0.1', 'matomo.shop.example': '127.0.0.1' });
    const policy = new SourceAddressPolicy([`http://matomo.shop.example:${port}`]);
    const fetch = sourceAddressFetch(policy, refusals, dns);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const refused = await fetch(`http://matomo.rebound.example:${port}/index.php`, { method: 'POST', body: 'token_auth=secret' }).catch(
        (error: { cause?: { code?: string } }) => error.cause?.code,
      );
      expect(refused).toBe('ESOURCEADDRESS');
    }
    expect(requests).toBe(0);
    expect(lines).toEqual([
      "sources: refused a connection to matomo.rebound.example, which resolves to a loopback address: not a service's public API nor listed in sourceBases",
    ]);
    expect(lines.join('\n')).not.toContain('secret');

    const listed = await fetch(`http://matomo.shop.example:${port}/index.php`, { method: 'POST', body: 'token_auth=secret' });
    expect([listed.status, await listed.json()]).toEqual([200, { visitors: 7 }]);
    expect(requests).toBe(1);
  });

  it.each([
    ['10.0.0.7', 'private'],
    ['169.254.169.254', 'link-local'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['fd12::1', 'unique-local'],
    ['::1', 'loopback'],
  ])('refuses a public API name that resolves to %s (%s), without connecting', async (address, kind) => {
    const lines: string[] = [];
    const lookup = sourceAddressLookup(
      new SourceAddressPolicy([]),
      new RefusalLog((line) => lines.push(line)),
      fakeDns({ 'plausible.io': address }),
    );
    const error = await new Promise((resolve) => lookup('plausible.io', {}, (failure) => resolve(failure)));
    expect(error).toMatchObject({ code: 'ESOURCEADDRESS' });
    expect(lines[0]).toContain(`plausible.io, which resolves to a ${kind} address`);
  });

  it('hands a public answer to the socket as resolved, in the form net.connect asks for', async () => {
    const lookup = sourceAddressLookup(new SourceAddressPolicy([]), new RefusalLog(() => {}), async () => [
      { address: '2606:4700::6812:1', family: 6 },
      { address: '104.18.0.1', family: 4 },
    ]);
    const all = await new Promise((resolve) => lookup('plausible.io', { all: true }, (error, addresses) => resolve([error, addresses])));
    expect(all).toEqual([
      null,
      [
        { address: '2606:4700::6812:1', family: 6 },
        { address: '104.18.0.1', family: 4 },
      ],
    ]);
    const one = await new Promise((resolve) =>
      lookup('plausible.io', { family: 4 }, (error, address, family) => resolve([error, address, family])),
    );
    expect(one).toEqual([null, '104.18.0.1', 4]);
  });
});
