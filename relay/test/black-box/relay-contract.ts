import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseReport } from '../../../src/contract/report.js';
import { type Answer, toAnswer } from '../../../test/support/network.js';
import { StallMeter } from '../support/stall-meter.js';
import { NOT_RELAYED, RELAYED, type RecordingUpstream, startRecordingUpstream } from './recording-upstream.js';
import type { RelayKnobs, RelayTarget, StartedRelay } from './relay-target.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Node relay's Cache-Control for these knobs (`relay/src/responses.ts`), which every relay sends. */
function expectedCacheControl({ interval, maxStale }: Pick<RelayKnobs, 'interval' | 'maxStale'>): string {
  const maxAge = Math.min(interval, maxStale);
  const staleIfError = maxStale - maxAge;
  return `public, max-age=${maxAge}, stale-while-revalidate=${Math.min(interval, staleIfError)}, stale-if-error=${staleIfError}`;
}

/** Every upstream request at least one interval after the one before: at most one per interval. */
function expectAtMostOnePerInterval(upstream: RecordingUpstream, intervalSeconds: number, stalls: StallMeter): void {
  const times = upstream.requests.map((request) => request.atMs);
  const gaps = times.slice(1).map((time, index) => time - times[index]!);
  // 25 ms of slack: the two clocks are one, but the request leaves the relay a moment after it
  // decides; and the upstream notes an arrival late by as long as this process stalled.
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(intervalSeconds * 1000 - 25 - stalls.longestMs);
}

function expectHonestError(answer: Answer, status: number | readonly number[]): void {
  expect([status].flat()).toContain(answer.status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.json).toEqual({ error: expect.any(String) });
  expect(answer.headers.get('cache-control')).toBe('no-store');
}

/**
 * The relay's black-box contract, the same for every implementation (`RelayTarget`): only the
 * configured website, at most one upstream request per interval however many browsers ask, a
 * budget never exceeded, the last good answer until maxStale and then an honest JSON error,
 * the Node relay's caching headers, and the token in no answer and no log line. Real time, short
 * intervals: each test takes a few seconds.
 */
export function describeRelayContract(target: RelayTarget): void {
  // Real time, real servers: a test runs for a few intervals.
  describe(`relay contract: ${target.name}`, () => {
    let upstream: RecordingUpstream | undefined;
    let relay: StartedRelay | undefined;
    let answers: Answer[] = [];
    const stalls = new StallMeter();

    beforeEach(() => stalls.reset());

    afterEach(async () => {
      // The token, in no answer (headers and body) and no log line of any test.
      const seen = [...answers.map((answer) => `${[...answer.headers].join('\n')}\n${answer.text}`), relay ? await relay.logs() : ''].join(
        '\n',
      );
      for (const token of [RELAYED.token, NOT_RELAYED.token]) {
        expect(seen).not.toContain(token);
        expect(seen).not.toContain(encodeURIComponent(token));
      }
      answers = [];
      await relay?.close();
      await upstream?.close();
      relay = undefined;
      upstream = undefined;
    });

    async function start(knobs: Omit<RelayKnobs, 'upstream'>): Promise<{ upstream: RecordingUpstream; relay: StartedRelay }> {
      upstream = await startRecordingUpstream();
      relay = await target.start({ ...knobs, upstream });
      return { upstream, relay };
    }

    async function ask(query: string, init: RequestInit = {}): Promise<Answer> {
      const answer = await toAnswer(await fetch(`${relay!.realtimeUrl}${query}`, init));
      answers.push(answer);
      return answer;
    }

    const mine = `?websiteId=${RELAYED.id}`;

    it('answers only its own website: any other id gets 404 without an upstream request, a missing one 400', async () => {
      const { upstream } = await start({ interval: 5, maxStale: 20, hourlyBudget: 100 });
      expectHonestError(await ask(`?websiteId=${NOT_RELAYED.id}`), 404);
      expectHonestError(await ask('?websiteId=nobody-at-all'), 404);
      expectHonestError(await ask(''), 400);
      expect((await ask('')).json).toEqual({ error: 'websiteId is required' });
      expect(upstream.requests).toHaveLength(0);

      const answer = await ask(mine);
      expect(answer.status).toBe(200);
      expect(parseReport(answer.json, RELAYED.id)).toEqual(answer.json);
      expect(upstream.requests).toHaveLength(1);
      expect(upstream.requests[0]!.authorization).toBe(`Bearer ${RELAYED.token}`);
      // The token goes in the header, never in the URL.
      expect(upstream.requests[0]!.url).not.toContain('SECRET');

      expectHonestError(await ask(`?websiteId=${NOT_RELAYED.id}`), 404);
      expect(upstream.requests).toHaveLength(1);
    });

    it('sends the Node relay’s Cache-Control, CDN-Cache-Control, Age and a strong ETag, and 304 for If-None-Match', async () => {
      const knobs = { interval: 4, maxStale: 20, hourlyBudget: 100 };
      const { upstream } = await start(knobs);
      upstream.emulator.recordPageview(RELAYED.id, 'shopper-1');
      const first = await ask(mine);
      expect(first.status).toBe(200);
      expect((first.json as { currentVisitors: number }).currentVisitors).toBe(1);
      expect(first.headers.get('content-type')).toMatch(/^application\/json/);
      expect(first.headers.get('cache-control')).toBe(expectedCacheControl(knobs));
      expect(first.headers.get('cdn-cache-control')).toBe(expectedCacheControl(knobs));
      expect(first.headers.get('age')).toMatch(/^[01]$/);
      const etag = first.headers.get('etag')!;
      // The first 64 bits of the body's SHA-256: the same body has the same ETag on every relay.
      expect(etag).toBe(`"${createHash('sha256').update(first.text).digest('hex').slice(0, 16)}"`);

      for (const header of [etag, `W/${etag}`, `"something-else", ${etag}`, '*']) {
        const revalidated = await ask(mine, { headers: { 'If-None-Match': header } });
        expect(revalidated.status).toBe(304);
        expect(revalidated.text).toBe('');
        expect(revalidated.headers.get('etag')).toBe(etag);
        expect(revalidated.headers.get('cache-control')).toBe(expectedCacheControl(knobs));
      }
      expect((await ask(mine, { headers: { 'If-None-Match': '"something-else"' } })).status).toBe(200);

      const head = await ask(mine, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers.get('etag')).toBe(etag);

      await sleep(1_100);
      const later = await ask(mine);
      expect(later.text).toBe(first.text);
      expect(Number(later.headers.get('age'))).toBeGreaterThanOrEqual(1);
      expect(upstream.requests).toHaveLength(1);
    });

    it('costs at most one upstream request per interval with 50 browsers asking at once, the service answering in 1.5 s', async () => {
      const knobs = { interval: 2, maxStale: 30, hourlyBudget: 1_000 };
      const { upstream } = await start(knobs);
      upstream.emulator.setFault({ kind: 'slow', delaySeconds: 1.5 });
      const startedAt = Date.now();
      const waves: Answer[][] = [];
      // Three intervals, 50 requests at once at the start of each.
      for (let wave = 0; wave < 3; wave += 1) {
        await sleep(Math.max(0, startedAt + wave * (knobs.interval * 1000 + 100) - Date.now()));
        waves.push(await Promise.all(Array.from({ length: 50 }, () => ask(mine))));
      }
      for (const answer of waves.flat()) {
        expect(answer.status).toBe(200);
        expect(parseReport(answer.json, RELAYED.id)).toEqual(answer.json);
      }
      // Three waves span a little over two intervals; on a loaded machine a wave of 50 may take longer
      // than an interval, and then one more request is due, never more than one per interval elapsed.
      const intervalsElapsed = Math.floor((Date.now() - startedAt) / (knobs.interval * 1000));
      expect(upstream.requests.length).toBeGreaterThanOrEqual(2);
      expect(upstream.requests.length).toBeLessThanOrEqual(Math.max(3, intervalsElapsed + 1));
      expectAtMostOnePerInterval(upstream, knobs.interval, stalls);
      console.info(
        `${target.name}: ${upstream.requests.length} upstream request(s) for 3 waves of 50 concurrent requests, interval ${knobs.interval} s`,
      );
    });

    it('never exceeds the hourly budget: with a budget of 3, exactly 3 requests, then an honest 503 once maxStale has passed', async () => {
      const knobs = { interval: 1, maxStale: 2, hourlyBudget: 3 };
      const { upstream } = await start(knobs);
      const seen: Answer[] = [];
      // Until the relay says it has nothing to serve (a busy machine gets there later than the
      // 4 s it takes when idle), then once more an interval later: still no fourth request.
      while (seen.at(-1)?.status !== 503 && upstream.requests.length <= 3) {
        seen.push(await ask(mine));
        await sleep(200);
      }
      await sleep(knobs.interval * 1000 + 200);
      seen.push(await ask(mine));
      expect(upstream.requests).toHaveLength(3);
      expectAtMostOnePerInterval(upstream, knobs.interval, stalls);
      const last = seen.at(-1)!;
      expectHonestError(last, 503);
      // The budget has room again one hour after its first request, not before.
      const retryAfter = Number(last.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(3_600 - 10);
      expect(retryAfter).toBeLessThanOrEqual(3_600);
      expect(seen.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
    });

    it('serves the last good answer while the service fails, until maxStale, then an honest 502 with Retry-After', async () => {
      const knobs = { interval: 1, maxStale: 3, hourlyBudget: 1_000 };
      const { upstream } = await start(knobs);
      upstream.emulator.recordPageview(RELAYED.id, 'shopper-1');
      const good = await ask(mine);
      expect(good.status).toBe(200);
      const fetchedAt = upstream.requests[0]!.atMs;
      upstream.emulator.setFault({ kind: 'server-error' });

      // Until the relay gives up (a busy machine may take longer than maxStale's 3 s to get there).
      let last = good;
      while (last.status === 200) {
        await sleep(200);
        const askedAt = Date.now();
        last = await ask(mine);
        if (last.status !== 200) break;
        // The same count, never a newer-looking one, and its Age says how old it is.
        expect(last.text).toBe(good.text);
        expect(Number(last.headers.get('age'))).toBeGreaterThanOrEqual(Math.floor((askedAt - fetchedAt) / 1000) - 1);
        expect(Number(last.headers.get('age')), 'served past maxStale').toBeLessThan(knobs.maxStale);
      }
      expectHonestError(last, 502);
      expect(Date.now() - fetchedAt).toBeGreaterThanOrEqual(knobs.maxStale * 1000 - 50);
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const error = (last.json as { error: string }).error;
      if (!target.quotesServiceWords) expect(error).not.toContain('Internal server error');
      // Backed off: never more than one attempt per interval while failing.
      expect(upstream.requests.length).toBeGreaterThanOrEqual(2);
      expectAtMostOnePerInterval(upstream, knobs.interval, stalls);
    });

    it('honours the service’s 429 Retry-After: no request before it, the last good answer meanwhile', async () => {
      const knobs = { interval: 1, maxStale: 30, hourlyBudget: 1_000 };
      const { upstream } = await start(knobs);
      const good = await ask(mine);
      expect(good.status).toBe(200);
      upstream.emulator.setFault({ kind: 'rate-limited', retryAfterSeconds: 3 });
      await sleep(1_100);
      expect((await ask(mine)).text).toBe(good.text);
      expect(upstream.requests).toHaveLength(2);
      const limitedAt = upstream.requests[1]!.atMs;
      upstream.emulator.clearFault();
      // Asking until the relay has asked again: when is what the test checks, not how soon it came.
      while (upstream.requests.length < 3) {
        const answer = await ask(mine);
        expect(answer.status).toBe(200);
        await sleep(200);
      }
      // Asked again, but not before the 3 s the service asked for (then once per interval, as before).
      expect(upstream.requests.length).toBeGreaterThanOrEqual(3);
      expect(upstream.requests[2]!.atMs - limitedAt).toBeGreaterThanOrEqual(3_000);
    });

    it('answers a 429 with nothing to fall back on as 503 with Retry-After, without asking again meanwhile', async () => {
      const { upstream } = await start({ interval: 1, maxStale: 30, hourlyBudget: 1_000 });
      upstream.emulator.setFault({ kind: 'rate-limited', retryAfterSeconds: 30 });
      const limited = await ask(mine);
      expectHonestError(limited, 503);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(29);
      expect(retryAfter).toBeLessThanOrEqual(34);
      await sleep(1_100);
      expectHonestError(await ask(mine), 503);
      expect(upstream.requests).toHaveLength(1);
    });
  });
}
