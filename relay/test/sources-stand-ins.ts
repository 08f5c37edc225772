import { afterAll, beforeAll } from 'vitest';
import { STAND_IN_KEYS } from '../../emulator/src/sources/keys.js';
import { SourceStandIns } from '../../emulator/src/sources/stand-ins.js';
import { type NodeServer, serveOnNode } from '../../server-kit/serve.js';
import type { FetchFunction } from '../src/upstream.js';

/** Support for the sources tests: the emulator's stand-ins on a loopback port, with counts and a clock the test sets. */

export const START_MS = Date.UTC(2026, 10, 27, 12, 0, 0, 0);

/** The stand-ins' websites: `shop-a` is position 1 (Matomo idSite, GA4 property), `shop-b` position 2. */
export const SITES = ['shop-a', 'shop-b'] as const;

export interface StandInServer {
  readonly standIns: SourceStandIns;
  readonly url: string;
  readonly counts: Map<string, number>;
  readonly clock: { nowMs: number; readonly now: () => number };
  close(): Promise<void>;
}

export async function startStandIns(): Promise<StandInServer> {
  const counts = new Map<string, number>([
    ['shop-a', 23],
    ['shop-b', 0],
  ]);
  const clock = {
    nowMs: START_MS,
    now: () => clock.nowMs,
  };
  const standIns = new SourceStandIns({ siteIds: () => SITES, countOf: (id) => counts.get(id), now: clock.now });
  const server: NodeServer = await serveOnNode((request) => standIns.app.fetch(request), { port: 0, graceMs: 100 });
  return { standIns, url: server.url, counts, clock, close: () => server.close() };
}

/** Each kind's `source` for `shop-a`, as a shop would paste it, pointed at the stand-ins. */
export async function sourcesFor(
  server: StandInServer,
): Promise<Record<'plausible' | 'umami' | 'umamiSelfHosted' | 'matomo' | 'ga4' | 'fathom', Record<string, unknown>>> {
  const { url } = server;
  return {
    plausible: { kind: 'plausible', base: `${url}/sources/plausible`, siteId: 'shop-a', apiKey: STAND_IN_KEYS.plausible },
    umami: { kind: 'umami', base: `${url}/sources/umami/api`, websiteId: 'shop-a', apiKey: STAND_IN_KEYS.umami },
    umamiSelfHosted: { kind: 'umami', base: `${url}/sources/umami/api`, websiteId: 'shop-a', ...STAND_IN_KEYS.umamiLogin },
    matomo: { kind: 'matomo', base: `${url}/sources/matomo`, siteId: 1, tokenAuth: STAND_IN_KEYS.matomo },
    ga4: { kind: 'ga4', base: url, propertyId: '1', credentials: await server.standIns.ga4.serviceAccountKey(url) },
    fathom: { kind: 'fathom', base: `${url}/sources/fathom`, siteId: 'shop-a', apiKey: STAND_IN_KEYS.fathom },
  };
}

/**
 * The stand-ins and each kind's source, started before the suite's tests and closed after them.
 * The returned object is filled in by the time any test runs (not while the file is being collected).
 */
export function standInsForSuite(): { server: StandInServer; sources: Awaited<ReturnType<typeof sourcesFor>> } {
  const suite = {} as ReturnType<typeof standInsForSuite>;
  beforeAll(async () => {
    suite.server = await startStandIns();
    suite.sources = await sourcesFor(suite.server);
  });
  afterAll(() => suite.server?.close());
  return suite;
}

export interface SentRequest {
  readonly method: string;
  readonly url: string;
  readonly headerNames: readonly string[];
  readonly body: string;
}

/** The global fetch, with every request it sends written down. */
export function recordingFetch(): { readonly fetch: FetchFunction; readonly sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  return {
    sent,
    fetch: async (input, init) => {
      const headers = new Headers(init.headers);
      sent.push({
        method: init.method ?? 'GET',
        url: input,
        headerNames: [...headers.keys()].sort(),
        body: typeof init.body === 'string' ? init.body : '',
      });
      return fetch(input, init);
    },
  };
}
