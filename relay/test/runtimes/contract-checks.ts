import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorConfig, type EmulatorServer, startEmulatorServer } from '../../../emulator/src/index.js';
import { eventually } from '../../../test/support/network.js';
import { ensureRelayBuilt, type RelayEnvironment, type RelayUnderTest } from './runtime-support.js';

/** Tokens distinctive enough that finding one anywhere can only mean a leak; `+ / =` for URL-encoded leaks. */
const SHOP = { id: 'shop-a', token: 'tokA-SECRET-7f3a9c' } as const;
const OTHER_SHOP = { id: 'shop-b', token: 'tokB+SECRET/4d2e==' } as const;
/** Relayed with a token the service does not know: its failure goes through the relay's log. */
const REFUSED_SHOP = { id: 'shop-c', token: 'tokC-SECRET-0b5e21' } as const;
const RELAYED = [SHOP, OTHER_SHOP, REFUSED_SHOP];
const TOKENS = RELAYED.map((website) => website.token);
const SHOP_ORIGIN = 'https://shop.example';

export const EMULATOR_CONFIG: EmulatorConfig = {
  websites: [
    { id: SHOP.id, token: SHOP.token, plan: 'enterprise' },
    { id: OTHER_SHOP.id, token: OTHER_SHOP.token, plan: 'enterprise' },
    // Known to the service but not to the relay: the relay must not ask for it.
    { id: 'not-relayed', token: 'tokN-SECRET-0000', plan: 'enterprise' },
  ],
};

/** The platform's environment for a relay in front of `upstream`: the tokens in LIVE_VISITORS_WEBSITES, as a secret would hold them. */
export function relayEnvironment(upstream: string, overrides: RelayEnvironment = {}): RelayEnvironment {
  return {
    LIVE_VISITORS_UPSTREAM: upstream,
    LIVE_VISITORS_WEBSITES: JSON.stringify(RELAYED),
    LIVE_VISITORS_ALLOW_ORIGINS: SHOP_ORIGIN,
    LIVE_VISITORS_INTERVAL: '60',
    // Room for three websites at that interval (the default, 100, is the Free plan's).
    LIVE_VISITORS_HOURLY_BUDGET: '1000',
    ...overrides,
  };
}

/** Tokens (plain or URL-encoded) found in `text`. */
export function leakedTokens(text: string): string[] {
  return TOKENS.filter((token) => text.includes(token) || text.includes(encodeURIComponent(token)));
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Every place a token could hide in an answer: all headers and the body. */
export function answerText(answer: Answer): string {
  return `${[...answer.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n${answer.text}`;
}

export async function startContractEmulator(): Promise<EmulatorServer> {
  const emulator = await startEmulatorServer({ port: 0, config: EMULATOR_CONFIG, onError: () => undefined });
  for (const visitor of ['v1', 'v2', 'v3']) emulator.emulator.recordPageview(SHOP.id, visitor);
  return emulator;
}

/**
 * The relay's contract, checked the same way on every runtime: `start` runs a template, unchanged,
 * with the platform's environment pointing it at a real emulator on loopback.
 */
export function describeRelayContract(runtime: string, start: (environment: RelayEnvironment) => Promise<RelayUnderTest>): void {
  describe(`the relay on ${runtime}`, () => {
    let emulator: EmulatorServer;
    let relay: RelayUnderTest;
    const answers: Answer[] = [];
    /** Authenticated requests the service counted against its plans. */
    const served = () => emulator.emulator.stats().trackedRateLimitRequests;

    async function get(websiteId: string, init: RequestInit = {}): Promise<Answer> {
      const response = await fetch(`${relay.url}/api/v1/realtime?websiteId=${encodeURIComponent(websiteId)}`, init);
      const answer = { status: response.status, headers: response.headers, text: await response.text() };
      answers.push(answer);
      return answer;
    }

    beforeAll(async () => {
      await ensureRelayBuilt();
      emulator = await startContractEmulator();
      relay = await start(relayEnvironment(emulator.url));
    }, 150_000);

    afterAll(async () => {
      await relay?.stop();
      await emulator?.close();
    });

    it("answers the service's count from one upstream request for many browsers", async () => {
      const first = await Promise.all(Array.from({ length: 8 }, () => get(SHOP.id)));
      const later = await get(SHOP.id);
      for (const answer of [...first, later]) {
        expect(answer.status).toBe(200);
        const report = JSON.parse(answer.text) as Record<string, unknown>;
        expect(Object.keys(report).sort()).toEqual(['currentVisitors', 'timestamp', 'websiteId']);
        expect(report).toMatchObject({ websiteId: SHOP.id, currentVisitors: emulator.emulator.currentVisitors(SHOP.id) });
        expect(report.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
      expect(emulator.emulator.currentVisitors(SHOP.id)).toBe(3);
      expect(served()).toBe(1);
    });

    it('answers 404 for a website it does not relay, without asking the service', async () => {
      const before = served();
      const answer = await get('not-relayed');
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.text)).toEqual({ error: 'Website not found' });
      expect(served()).toBe(before);
    });

    it('lets an allowed origin read the answer, and no other', async () => {
      const allowed = await get(SHOP.id, { headers: { Origin: SHOP_ORIGIN } });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(SHOP_ORIGIN);
      expect(allowed.headers.get('vary')).toMatch(/origin/i);
      const other = await get(SHOP.id, { headers: { Origin: 'https://elsewhere.example' } });
      expect(other.status).toBe(200);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();

      const preflight = await fetch(`${relay.url}/api/v1/realtime?websiteId=${SHOP.id}`, {
        method: 'OPTIONS',
        headers: { Origin: SHOP_ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
      });
      answers.push({ status: preflight.status, headers: preflight.headers, text: await preflight.text() });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(SHOP_ORIGIN);
    });

    it('answers 304 to If-None-Match with the current ETag', async () => {
      const full = await get(SHOP.id);
      const etag = full.headers.get('etag');
      expect(etag).toMatch(/^"[\w-]+"$/);
      const notModified = await get(SHOP.id, { headers: { 'If-None-Match': etag! } });
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect(notModified.headers.get('etag')).toBe(etag);
      expect(served()).toBe(1);
    });

    it('answers an upstream failure as an error, and logs it', async () => {
      const answer = await get(REFUSED_SHOP.id);
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.text)).toMatchObject({ error: expect.stringContaining('answered 401') });
      await eventually(() => relay.output().includes(`website "${REFUSED_SHOP.id}"`), undefined, 'the log line of the failure');
    });

    it('shows no token in any answer, nor in anything the runtime printed', () => {
      expect(answers.length).toBeGreaterThan(10);
      expect(answers.flatMap((answer) => leakedTokens(answerText(answer)))).toEqual([]);
      expect(leakedTokens(relay.output())).toEqual([]);
    });
  });
}
