// @vitest-environment node

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StandInServer, sourcesFor, startStandIns } from './sources-stand-ins.js';
import { type RelayInstance, startInstance, stopInstance } from './support/relay-processes.js';

/**
 * Issue 35 finding 1, black-box: relays as processes (file store, Node's fetch with the
 * connect-time check), registrants naming this machine's own servers as their source's address.
 * A hostile server on loopback counts what reaches it: nothing, unless the operator listed it.
 */

interface CountingServer {
  readonly url: string;
  readonly port: number;
  readonly requests: string[];
  close(): Promise<void>;
}

/** Answers every request with a bare 7, as Plausible's realtime endpoint does, and records its path. */
async function countingServer(): Promise<CountingServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.setHeader('Content-Type', 'application/json');
    response.end('7');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const KEY = `k1:${btoa('a'.repeat(32))}`;
let folder: string;
let standIns: StandInServer;
let hostile: CountingServer;
let moved: CountingServer;
let relay: RelayInstance;
const started: RelayInstance[] = [];

async function relayListing(name: string, sourceBases: string[]): Promise<RelayInstance> {
  const path = join(folder, `${name}.json`);
  const config = {
    upstream: 'http://127.0.0.1:9',
    websites: [],
    selfServe: true,
    encryptionKeys: [KEY],
    registrationsFile: join(folder, 'registrations.json'),
    sourceBases,
  };
  await writeFile(path, JSON.stringify(config));
  const instance = await startInstance(path);
  started.push(instance);
  return instance;
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'relay-source-addresses-'));
  [standIns, hostile, moved] = await Promise.all([startStandIns(), countingServer(), countingServer()]);
  relay = await relayListing('listing', [standIns.url, moved.url]);
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map(stopInstance));
  await Promise.all([standIns?.close(), hostile?.close(), moved?.close()]);
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** A source registers under the ID it makes (POST); the answer names it. */
async function register(instance: RelayInstance, source: unknown) {
  const response = await fetch(`${instance.url}/api/v1/websites`, { method: 'POST', body: JSON.stringify({ source }) });
  return { status: response.status, json: (await response.json()) as { error?: string; websiteId?: string } };
}

/** The website ID the listed stand-in's Plausible site registered under, for the later tests. */
let listedId = '';

async function registered(): Promise<string> {
  return readFile(join(folder, 'registrations.json'), 'utf8').catch(() => '');
}

describe("a registrant's source address", () => {
  const plausibleAt = (base: string) => ({ kind: 'plausible', base, siteId: 'shop-a', apiKey: 'plausible-key-0000' });

  it.each([
    ['127.0.0.1', (port: number) => `http://127.0.0.1:${port}/api`],
    ['127.1', (port: number) => `http://127.1:${port}`],
    ['2130706433', (port: number) => `http://2130706433:${port}`],
    ['0x7f000001', (port: number) => `http://0x7f000001:${port}`],
    ['localhost', (port: number) => `http://localhost:${port}`],
    ['[::ffff:127.0.0.1]', (port: number) => `https://[::ffff:127.0.0.1]:${port}`],
    ['https on 127.0.0.1', (port: number) => `https://127.0.0.1:${port}`],
  ])('%s is refused with a 400 naming the API address, before any request, and nothing is stored', async (_name, base) => {
    const answer = await register(relay, plausibleAt(base(hostile.port)));
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatch(
      /^source\.base \(the API address\) must be plausible's public API, https:\/\/plausible\.io, or an address this relay's operator lists in sourceBases/,
    );
    expect(hostile.requests).toEqual([]);
    expect(await registered()).not.toContain('squatted');
  });

  it("GA4's token_uri on this machine is refused with a 400 naming it, and nothing is POSTed", async () => {
    const ga4 = (await sourcesFor(standIns)).ga4 as { credentials: Record<string, unknown> };
    const source = { ...ga4, credentials: { ...ga4.credentials, token_uri: `http://127.0.0.1:${hostile.port}/quitquitquit?drain=1` } };
    const answer = await register(relay, source);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatch(/^source\.credentials\.token_uri \(in the service account's JSON key\) must be Google's/);
    expect(hostile.requests).toEqual([]);
  });

  it('logs the refusals above in one line a minute, never with a key or the address', () => {
    const lines = relay.process
      .err()
      .split('\n')
      .filter((line) => line.includes("refused a registration's"));
    expect(lines).toEqual([
      "[live-visitors-relay] sources: refused a registration's plausible source: not a service's public API nor listed in sourceBases",
    ]);
    expect(relay.process.err()).not.toContain('plausible-key-0000');
    expect(relay.process.err()).not.toContain(String(hostile.port));
  });

  it('an origin the operator listed is registered and served', async () => {
    const answer = await register(relay, (await sourcesFor(standIns)).plausible);
    expect(answer.status).toBe(201);
    listedId = answer.json.websiteId ?? '';
    const served = await fetch(`${relay.url}/api/v1/realtime?websiteId=${encodeURIComponent(listedId)}`);
    expect([served.status, ((await served.json()) as { currentVisitors?: number }).currentVisitors]).toEqual([200, 23]);
  });

  it('a stored source whose origin the operator no longer lists is asked nothing after a restart, and the refusal is logged', async () => {
    const movedAnswer = await register(relay, plausibleAt(moved.url));
    expect(movedAnswer.status).toBe(201);
    expect(moved.requests).toHaveLength(1);
    await stopInstance(relay);
    const unlisted = await relayListing('unlisting', [standIns.url]);
    const served = await fetch(`${unlisted.url}/api/v1/realtime?websiteId=${encodeURIComponent(movedAnswer.json.websiteId ?? '')}`);
    expect(served.status).not.toBe(200);
    expect(moved.requests).toHaveLength(1);
    expect(unlisted.process.err()).toContain(`sources: refused a request to ${moved.url}`);
    expect(unlisted.process.err()).not.toContain('plausible-key-0000');
    // The listed one is still served.
    expect((await fetch(`${unlisted.url}/api/v1/realtime?websiteId=${encodeURIComponent(listedId)}`)).status).toBe(200);
  });
});
