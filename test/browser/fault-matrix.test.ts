import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../emulator/src/index.js';
import rules from '../../src/contract/rules.json' with { type: 'json' };
import { launchChromium } from './support/chromium.js';
import { type CountingEmulator, startCountingEmulator } from './support/counting-emulator.js';
import { FALLBACK_TEXT, shopPage } from './support/shop-page.js';
import { clockText, SimulatedTime } from './support/simulated-time.js';
import { type StaticSite, startStaticSite } from './support/static-site.js';
import { textTable } from './support/text-table.js';
import { brokenText, readWidgets, shownCount, type WidgetReading } from './support/widget-probe.js';

/**
 * Issue 4, fault matrix: each fault is injected at the service (or the browser goes offline) for
 * five simulated minutes, then cleared, while the built bundle runs on a plain page in Chromium.
 *
 * Timeline of every row (simulated time, interval 60 s, max-age 120 s):
 * - 0:00 page load, one good answer: 23 visitors, `live`;
 * - then the service's count becomes 31 and the fault starts;
 * - 1:00 the next regular poll meets the fault; 2:00 the last good count is exactly max-age old;
 * - 5:00 the fault is cleared; the feed must come back (`live`, 31) at the policy's next attempt.
 */

const WEBSITE = 'demo-shop';
const INTERVAL_MS = 60_000;
const MAX_AGE_MS = 120_000;
const FAULT_END_MS = 5 * 60_000;
/** Small enough to see the max-age switch on time, large enough to keep the run short. */
const STEP_MS = 5_000;
const BEFORE = 23;
const AFTER = 31;
/** The client gives up on a request after 10 s (README: timeouts). */
const REQUEST_TIMEOUT_MS = rules.elementRequestTimeoutMs;
/** How long a stopped feed is watched after the fault is gone, before `refresh()`. */
const STOPPED_WATCH_MS = 10 * 60_000;

/**
 * The retry policy of the README, written out independently of src/contract/backoff.ts; its
 * numbers (cap, factor, jitters, default wait) are read from the contract's rules.json, their one copy:
 * - `backoff` (5xx, network, timeout, invalid answers): the k-th failure in a row waits
 *   min(10 min, interval × 2^k), never less than the interval, jitter only shortening it, by at
 *   most 25 %;
 * - `retry-after` (429): Retry-After, or 5 min without one, never less than the interval, spread
 *   only lengthening it, by at most 10 %;
 * - `stop` (401, 404, 400): no request until `refresh()`;
 * - `silent` (offline): no request while offline, one at once when back online.
 */
type Policy = { kind: 'backoff' } | { kind: 'retry-after'; retryAfterMs: number | null } | { kind: 'stop' } | { kind: 'silent' };

/** Shortest and longest wait the policy allows after the `failures`-th failure in a row. */
function allowedWait(policy: Policy, failures: number): [number, number] {
  if (policy.kind === 'retry-after') {
    const asked = Math.max(INTERVAL_MS, policy.retryAfterMs ?? rules.defaultRateLimitWaitMs);
    return [asked, asked * (1 + rules.rateLimitJitter)];
  }
  const nominal = Math.max(INTERVAL_MS, Math.min(rules.maxBackoffMs, INTERVAL_MS * rules.backoffFactor ** failures));
  return [Math.max(INTERVAL_MS, nominal * (1 - rules.backoffJitter)), nominal];
}

interface FaultCase {
  name: string;
  policy: Policy;
  /** Set the fault at the service; absent for offline. */
  fault?: Fault;
  /** `hang`: a request stays at the service until the client's timeout ends it. */
  holdsRequest?: boolean;
}

const backoff: Policy = { kind: 'backoff' };
const stop: Policy = { kind: 'stop' };

const CASES: FaultCase[] = [
  { name: '500 server error', policy: backoff, fault: { kind: 'server-error' } },
  { name: '502 bad gateway (HTML)', policy: backoff, fault: { kind: 'bad-gateway' } },
  { name: '503 unavailable (HTML)', policy: backoff, fault: { kind: 'unavailable' } },
  { name: 'hanging response', policy: backoff, fault: { kind: 'hang' }, holdsRequest: true },
  { name: 'connection reset mid-body', policy: backoff, fault: { kind: 'reset' } },
  { name: '200 with an HTML page', policy: backoff, fault: { kind: 'html' } },
  { name: '200 with invalid JSON', policy: backoff, fault: { kind: 'invalid-json' } },
  { name: 'currentVisitors -3', policy: backoff, fault: { kind: 'invalid-count', value: -3 } },
  { name: 'currentVisitors "12"', policy: backoff, fault: { kind: 'invalid-count', value: '12' } },
  { name: 'currentVisitors 1.5', policy: backoff, fault: { kind: 'invalid-count', value: 1.5 } },
  { name: 'currentVisitors null', policy: backoff, fault: { kind: 'invalid-count', value: null } },
  { name: 'timestamp "not-a-date"', policy: backoff, fault: { kind: 'invalid-timestamp', value: 'not-a-date' } },
  { name: 'timestamp 2026-02-30', policy: backoff, fault: { kind: 'invalid-timestamp', value: '2026-02-30T12:00:00.000Z' } },
  { name: 'currentVisitors missing', policy: backoff, fault: { kind: 'missing-field', field: 'currentVisitors' } },
  { name: 'websiteId missing', policy: backoff, fault: { kind: 'missing-field', field: 'websiteId' } },
  { name: 'timestamp missing', policy: backoff, fault: { kind: 'missing-field', field: 'timestamp' } },
  { name: 'wrong websiteId', policy: backoff, fault: { kind: 'wrong-website', value: 'another-shop' } },
  {
    name: '429, Retry-After: 90',
    policy: { kind: 'retry-after', retryAfterMs: 90_000 },
    fault: { kind: 'rate-limited', retryAfterSeconds: 90 },
  },
  { name: '429 without Retry-After', policy: { kind: 'retry-after', retryAfterMs: null }, fault: { kind: 'rate-limited-no-retry-after' } },
  { name: '401 unauthorized', policy: stop, fault: { kind: 'unauthorized' } },
  { name: '404 website not found', policy: stop, fault: { kind: 'not-found' } },
  { name: '400 bad request', policy: stop, fault: { kind: 'bad-request' } },
  {
    name: 'offline, then online',
    policy: { kind: 'silent' },
  },
];

interface Outcome {
  /** Realtime requests the service received, by simulated time. */
  requests: number[];
  /** What the element showed after every step, and whether the fault was on then. */
  timeline: Array<{ at: number; inFault: boolean; reading: WidgetReading }>;
  errors: string[];
  /** Request times during the fault (up to and including 5:00). */
  during: number[];
  /** The first request after the fault ended, and how the element looked once it was answered. */
  recovery: { at: number; reading: WidgetReading; viaRefresh: boolean } | null;
  /** Requests of a stopped feed between the end of the fault and `refresh()`. */
  whileStopped: number;
  /** The element's events between the start and the end of the fault. */
  eventsInFault: { update: number; error: number };
}

let browser: Browser;
let site: StaticSite;
let service: CountingEmulator;
const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  [browser, site, service] = await Promise.all([launchChromium(), startStaticSite(), startCountingEmulator()]);
  site.put('/offer.html', shopPage({ apiBase: service.url, attributes: { 'max-age': String(MAX_AGE_MS / 1000) } }));
});

afterAll(async () => {
  if (outcomes.size > 0)
    console.log(
      textTable(
        'Fault matrix (interval 60 s, max-age 120 s, fault from 0:00 to 5:00 of simulated time):',
        [...outcomes].map(([name, outcome]) => tableRow(name, outcome)),
      ),
    );
  await Promise.all([browser?.close(), site?.close(), service?.close()]);
});

/** The element at simulated time `at`, while the fault was on (or before it, for 0:00). */
const stateAt = (outcome: Outcome, at: number) => outcome.timeline.find((entry) => entry.at === at && (entry.inFault || at === 0))?.reading;

function tableRow(name: string, outcome: Outcome): Record<string, string | number> {
  const caseOf = CASES.find((row) => row.name === name)!;
  const [low, high] = requestRange(caseOf);
  const show = (reading: WidgetReading | undefined) => (reading ? `${reading.state} ${reading.count ?? '-'}` : '?');
  const { recovery } = outcome;
  return {
    fault: name,
    'requests in fault': outcome.during.length,
    allowed: low === high ? String(low) : `${low}-${high}`,
    at: outcome.during.map(clockText).join(' '),
    'update/error events in fault': `${outcome.eventsInFault.update}/${outcome.eventsInFault.error}`,
    '1:30': show(stateAt(outcome, 90_000)),
    '2:05 (> max-age)': show(stateAt(outcome, MAX_AGE_MS + STEP_MS)),
    recovered: recovery
      ? `${show(recovery.reading)} at ${clockText(recovery.at)}${recovery.viaRefresh ? ` by refresh() (${outcome.whileStopped} req. before)` : ''}`
      : 'no',
  };
}

/** Fewest and most requests the policy allows from 1:00 up to 5:00 (both included). */
function requestRange(row: FaultCase): [number, number] {
  if (row.policy.kind === 'silent') return [0, 0];
  if (row.policy.kind === 'stop') return [1, 1];
  const hold = row.holdsRequest ? REQUEST_TIMEOUT_MS : 0;
  const count = (pick: 0 | 1, slack: number) => {
    let at = INTERVAL_MS;
    let requests = 0;
    for (let failures = 1; at <= FAULT_END_MS; failures += 1) {
      requests += 1;
      at += hold + allowedWait(row.policy, failures)[pick] + slack;
    }
    return requests;
  };
  // Most: every wait at its shortest. Fewest: every wait at its longest, plus a step of the clock.
  return [count(1, STEP_MS), count(0, 0)];
}

/** Counts the element's events from the first script on (they bubble and are composed). */
const COUNT_EVENTS = `(() => {
  const counts = { update: 0, error: 0 };
  window.__liveVisitorsEvents = counts;
  document.addEventListener('live-visitors-update', () => { counts.update += 1; }, true);
  document.addEventListener('live-visitors-error', () => { counts.error += 1; }, true);
})()`;

function countEvents(page: Page): Promise<{ update: number; error: number }> {
  return page.evaluate<{ update: number; error: number }>('({ ...window.__liveVisitorsEvents })');
}

class FaultRun {
  readonly requests: number[] = [];
  readonly timeline: Outcome['timeline'] = [];
  readonly errors: string[] = [];
  inFault = false;
  #seen = service.realtimeRequests;

  private constructor(
    readonly context: BrowserContext,
    readonly time: SimulatedTime,
    readonly page: Page,
    readonly holdsRequest: boolean,
  ) {}

  static async open(row: FaultCase): Promise<FaultRun> {
    const context = await browser.newContext();
    await context.addInitScript(COUNT_EVENTS);
    const time = await SimulatedTime.install(context);
    const page = await context.newPage();
    const run = new FaultRun(context, time, page, row.holdsRequest ?? false);
    page.on('pageerror', (error) => run.errors.push(error.message));
    await page.goto(`${site.url}/offer.html`);
    await run.settle();
    return run;
  }

  async settle(): Promise<void> {
    await this.time.settle(this.holdsRequest ? { heldAtService: () => service.heldRequests } : {});
    await this.observe();
  }

  async advanceTo(at: number, stepMs = STEP_MS, until?: () => boolean): Promise<void> {
    while (this.time.elapsedMs < at && !until?.()) {
      await this.time.advance(
        Math.min(stepMs, at - this.time.elapsedMs),
        stepMs,
        undefined,
        this.holdsRequest ? { heldAtService: () => service.heldRequests } : {},
      );
      await this.observe();
    }
  }

  async observe(): Promise<void> {
    const sent = service.realtimeRequests - this.#seen;
    this.#seen = service.realtimeRequests;
    for (let index = 0; index < sent; index += 1) this.requests.push(this.time.elapsedMs);
    const [reading] = await readWidgets(this.page);
    this.timeline.push({ at: this.time.elapsedMs, inFault: this.inFault, reading: reading! });
  }

  get reading(): WidgetReading {
    return this.timeline.at(-1)!.reading;
  }
}

async function runCase(row: FaultCase): Promise<Outcome> {
  service.setVisitors(WEBSITE, BEFORE);
  const run = await FaultRun.open(row);
  try {
    expect(run.requests).toEqual([0]);
    expect(run.reading).toMatchObject({ state: 'live', count: BEFORE });

    // The service's count moves on (which clears faults), then the fault starts.
    service.setVisitors(WEBSITE, AFTER);
    if (row.fault) service.emulator.setFault(row.fault);
    else await run.context.setOffline(true);
    run.inFault = true;
    const eventsBefore = await countEvents(run.page);

    await run.advanceTo(FAULT_END_MS);
    const during = run.requests.slice(1);
    run.inFault = false;
    const eventsAfter = await countEvents(run.page);
    const eventsInFault = { update: eventsAfter.update - eventsBefore.update, error: eventsAfter.error - eventsBefore.error };

    if (row.fault) service.emulator.clearFault();
    else await run.context.setOffline(false);

    let recovery: Outcome['recovery'] = null;
    let whileStopped = 0;
    const sentBefore = run.requests.length;
    if (row.policy.kind === 'stop') {
      await run.advanceTo(FAULT_END_MS + STOPPED_WATCH_MS, 30_000);
      whileStopped = run.requests.length - sentBefore;
      await run.page.evaluate(() => document.querySelector('live-visitors')!.refresh());
      await run.settle();
      if (run.requests.length > sentBefore + whileStopped) recovery = { at: run.requests.at(-1)!, reading: run.reading, viaRefresh: true };
    } else {
      await run.settle();
      const last = run.requests.at(-1) ?? 0;
      const failures = Math.max(1, during.length);
      const latest =
        Math.max(FAULT_END_MS, last + (row.holdsRequest ? REQUEST_TIMEOUT_MS : 0) + allowedWait(row.policy, failures)[1]) + 2 * STEP_MS;
      await run.advanceTo(latest, STEP_MS, () => run.requests.length > sentBefore);
      if (run.requests.length > sentBefore) recovery = { at: run.requests[sentBefore]!, reading: run.reading, viaRefresh: false };
    }
    return { requests: run.requests, timeline: run.timeline, errors: run.errors, during, recovery, whileStopped, eventsInFault };
  } finally {
    await run.context.close();
  }
}

describe('fault matrix: the built bundle in Chromium against faults injected at the service', () => {
  it.each(CASES)('$name', async (row) => {
    const outcome = await runCase(row);
    outcomes.set(row.name, outcome);
    const { timeline, during, recovery } = outcome;

    // No uncaught error, and never broken text.
    expect(outcome.errors).toEqual([]);
    expect(timeline.filter(({ reading }) => brokenText(reading.text)).map(({ at, reading }) => `${clockText(at)} ${reading.text}`)).toEqual(
      [],
    );

    // Whatever shows is the last good count, or the fallback: never another number.
    for (const { at, reading } of timeline.filter(({ inFault }) => inFault)) {
      const shown = shownCount(reading.text);
      expect(shown === BEFORE || (shown === null && reading.text === FALLBACK_TEXT), `${clockText(at)}: ${reading.text}`).toBe(true);
      expect(reading.count === null || reading.count === BEFORE, `${clockText(at)}: count ${reading.count}`).toBe(true);
    }

    // The last good count is kept until max-age (2:00), then the fallback shows on time.
    const unavailable = { state: 'unavailable', count: null, text: FALLBACK_TEXT };
    const kept = { state: 'stale', count: BEFORE, text: `${BEFORE} people are browsing this shop right now` };
    if (row.policy.kind === 'stop') {
      // A configuration error is `unavailable` at once (README, `state`): retrying cannot fix it.
      expect(stateAt(outcome, 90_000)).toEqual(unavailable);
    } else {
      // Offline too: a count that cannot be refreshed is no longer `live`.
      expect(stateAt(outcome, 90_000)).toEqual(kept);
      expect(stateAt(outcome, MAX_AGE_MS)).toEqual(kept);
    }
    expect(stateAt(outcome, MAX_AGE_MS + STEP_MS)).toEqual(unavailable);
    expect(stateAt(outcome, FAULT_END_MS)).toEqual(unavailable);

    // Requests within the policy: the first at the regular poll, then each wait as allowed.
    const [fewest, most] = requestRange(row);
    expect(during.length).toBeGreaterThanOrEqual(fewest);
    expect(during.length).toBeLessThanOrEqual(most);
    if (row.policy.kind !== 'silent') expect(during[0]).toBe(INTERVAL_MS);
    // One `live-visitors-error` per failed request, and no `live-visitors-update`: no new report came.
    expect(outcome.eventsInFault).toEqual({ update: 0, error: during.length });
    const attempts = recovery && !recovery.viaRefresh ? [...during, recovery.at] : during;
    for (let failures = 1; failures < attempts.length; failures += 1) {
      const [shortest, longest] = allowedWait(row.policy, failures);
      const hold = row.holdsRequest ? REQUEST_TIMEOUT_MS : 0;
      const gap = attempts[failures]! - attempts[failures - 1]!;
      expect(gap, `wait after failure ${failures}`).toBeGreaterThanOrEqual(shortest + hold - STEP_MS);
      expect(gap, `wait after failure ${failures}`).toBeLessThanOrEqual(longest + hold + STEP_MS);
    }

    // Recovery: live again with the service's new count, at the policy's next attempt.
    const live = { state: 'live', count: AFTER, text: `${AFTER} people are browsing this shop right now` };
    expect(recovery?.reading).toEqual(live);
    if (row.policy.kind === 'stop') {
      // Stopped until refresh(): not one request in the 10 minutes after the fault ended.
      expect(outcome.whileStopped).toBe(0);
      expect(recovery?.viaRefresh).toBe(true);
    } else if (row.policy.kind === 'silent') {
      // Back online with an overdue count: asks at once (within the step the event arrived in).
      expect(recovery!.at - FAULT_END_MS).toBeLessThanOrEqual(STEP_MS);
    }
  });
});
