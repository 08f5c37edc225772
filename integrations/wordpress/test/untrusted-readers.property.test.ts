// @vitest-environment node
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { secretForms } from '../../../relay/src/redaction.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import { holds } from '../../../test/support/properties.js';
import { readInPhp } from './support/plugin-readers.js';

/**
 * The plugin's readers of what comes back from the database (`Live_Visitors_Stored_Records`) and
 * its redactor, for any input, in PHP 8.2 outside WordPress (they use nothing of it). Each run
 * sends a batch of cases to one PHP process, so a thousand cases cost a few PHP starts; a failing
 * batch shrinks to its failing case.
 */

const WEBSITE = 'bb-shop';
const NOW = Date.UTC(2026, 10, 27, 9, 0, 0);
const HOUR_MS = 3_600_000;
const BATCH = 50;
const RUNS = 20;

const time = fc.oneof(
  fc.integer({ min: NOW - 10 * 86_400_000, max: NOW + 10 * 86_400_000 }),
  fc.constantFrom(0, -1, 4e12, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
  fc.double(),
  fc.string({ maxLength: 12 }),
  fc.constant(null),
);

const body = fc.oneof(
  fc
    .record({ currentVisitors: fc.nat(), websiteId: fc.constantFrom(WEBSITE, 'other'), timestamp: fc.constant('2026-11-27T09:00:00.000Z') })
    .map((report) => JSON.stringify(report)),
  fc.string({ maxLength: 60 }),
  fc.constant(`{"currentVisitors": 5, "websiteId": "${WEBSITE}", "timestamp": "2026-11-27T09:00:00.000Z"}`),
);

/** A state as a worker (right or wrong clock), another plugin, or an operator may have written it. */
const stateLike = fc.record(
  {
    website_id: fc.oneof(fc.constant(WEBSITE), fc.string({ maxLength: 8 }), fc.jsonValue()),
    answer: fc.oneof(
      fc.constant(null),
      fc.record(
        { body, etag: fc.oneof(fc.constant('"0123456789abcdef"'), fc.string({ maxLength: 10 })), fetched_at_ms: time },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    ),
    failures: fc.oneof(fc.nat(), fc.integer(), fc.jsonValue()),
    next_attempt_at_ms: time,
    failure: fc.oneof(
      fc.constant(null),
      fc.record(
        {
          kind: fc.oneof(fc.constantFrom('timeout', 'server', 'unauthorized', 'nonsense'), fc.jsonValue()),
          status: fc.oneof(fc.constant(null), fc.integer({ min: -5, max: 1200 }), fc.jsonValue()),
          reason: fc.oneof(fc.constantFrom('answered 500', 'said "<script>"', 'x\u202ey'), fc.string({ maxLength: 250 })),
          said: fc.oneof(fc.constant(null), fc.string({ maxLength: 250 })),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    ),
    budget_room_at_ms: time,
  },
  { requiredKeys: [] },
);

/** A state as the relay writes it, its times from any clock: what the readers must accept when the times allow. */
const wellFormedState = fc.record({
  website_id: fc.constant(WEBSITE),
  answer: fc.option(
    fc.record({
      body: fc
        .record({ currentVisitors: fc.nat(), websiteId: fc.constant(WEBSITE), timestamp: fc.constant('2026-11-27T09:00:00.000Z') })
        .map((report) => JSON.stringify(report)),
      etag: fc.constant('"0123456789abcdef"'),
      fetched_at_ms: fc.integer({ min: NOW - 86_400_000, max: NOW + 86_400_000 }),
    }),
  ),
  failures: fc.nat(),
  next_attempt_at_ms: fc.oneof(fc.integer({ min: NOW - 86_400_000, max: NOW + 86_400_000 }), fc.constant(Number.MAX_SAFE_INTEGER)),
  failure: fc.option(
    fc.record({
      kind: fc.constantFrom('timeout', 'server', 'rate-limited'),
      status: fc.option(fc.integer({ min: 100, max: 599 })),
      reason: fc.string({ maxLength: 220 }),
      said: fc.option(fc.string({ maxLength: 220 })),
    }),
  ),
  budget_room_at_ms: fc.option(fc.oneof(fc.integer({ min: NOW, max: NOW + 86_400_000 }), fc.constant(Number.MAX_SAFE_INTEGER))),
});

interface StateRead {
  answer: { body: string; etag: string; fetched_at_ms: number } | null;
  failures: number;
  next_attempt_at_ms: number;
  failure: { kind: string; status: number | null; reason: string; said: string | null } | null;
  budget_room_at_ms: number | null;
}

const batches = <T>(arbitrary: fc.Arbitrary<T>) => fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH });

describe('Live_Visitors_Stored_Records (PHP), for any stored value', () => {
  it('a state is nothing, or valid and bounded: no answer from beyond the clock tolerance, no wait past an hour, only its own words', () => {
    let withAnswer = 0;
    holds(
      fc.property(batches(fc.tuple(fc.oneof(wellFormedState, stateLike, fc.jsonValue()), fc.integer({ min: 1, max: 7_200 }))), (cases) => {
        const read = readInPhp<StateRead | null>(
          'state',
          cases.map(([raw, interval]) => ({ raw, website_id: WEBSITE, now_ms: NOW, interval_ms: interval * 1000 })),
        );
        read.forEach((state, index) => {
          if (state === null) return;
          const intervalMs = cases[index]![1] * 1000;
          expect(Number.isSafeInteger(state.failures) && state.failures >= 0).toBe(true);
          expect(state.next_attempt_at_ms).toBeLessThanOrEqual(NOW + Math.max(HOUR_MS, intervalMs));
          if (state.budget_room_at_ms !== null) expect(state.budget_room_at_ms).toBeLessThanOrEqual(NOW + HOUR_MS);
          if (state.answer) {
            withAnswer += 1;
            expect(state.answer.fetched_at_ms).toBeLessThanOrEqual(NOW + rules.clockToleranceMs);
            expect(JSON.parse(state.answer.body)).toMatchObject({ websiteId: WEBSITE });
            expect(state.answer.etag).toMatch(/^"[\w-]{1,64}"$/);
          }
          if (state.failure) expect(state.failure.reason).toMatch(/^[^"\\`<>\p{Cc}\p{Cf}]{1,200}$/u);
        });
      }),
      RUNS,
    );
    // The generator reaches the readers' accepting paths, not only their refusals.
    expect(withAnswer).toBeGreaterThan(0);
  });

  it('a budget is only whole times of the last hour, none ahead of the clock tolerance', () => {
    holds(
      fc.property(batches(fc.oneof(fc.array(time, { maxLength: 6 }), fc.jsonValue())), (cases) => {
        const read = readInPhp<number[]>(
          'budget',
          cases.map((raw) => ({ raw, now_ms: NOW })),
        );
        for (const times of read) {
          for (const each of times) {
            expect(Number.isInteger(each)).toBe(true);
            expect(each).toBeGreaterThan(NOW - HOUR_MS);
            expect(each).toBeLessThanOrEqual(NOW + rules.clockToleranceMs);
          }
        }
      }),
      RUNS,
    );
  });

  it('a lock is held until at most its life (and the tolerance) from now, or it is nobody’s', () => {
    const life = rules.upstreamTimeoutMs + rules.claimSlackMs;
    const lockValue = fc.oneof(
      fc
        .tuple(fc.oneof(fc.integer({ min: NOW - 86_400_000, max: NOW + 86_400_000 }), fc.bigInt({ min: 0n, max: 10n ** 22n })), fc.uuid())
        .map(([expiry, owner]) => `${expiry}|${owner}`),
      fc.string({ maxLength: 30 }),
      fc.jsonValue(),
    );
    holds(
      fc.property(batches(lockValue), (cases) => {
        const read = readInPhp<number | null>(
          'lock',
          cases.map((raw) => ({ raw, now_ms: NOW, life_ms: life })),
        );
        for (const expiry of read) if (expiry !== null) expect(expiry).toBeLessThanOrEqual(NOW + life + rules.clockToleranceMs);
      }),
      RUNS,
    );
  });
});

describe('Live_Visitors_Redactor (PHP), for any token a Bearer header can carry', () => {
  const token = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{8,40}=*$/);
  /** Text around a secret that cannot be mistaken for part of it. */
  const around = fc.string({ unit: fc.constantFrom(' ', ':', ';', ',', '!', '"', '\n', 'é', '(', ')'), maxLength: 6 });
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  /** Forms an encoder or a service may write that the Node relay's list spells differently or not at all. */
  const moreForms = (secret: string) => [
    encodeURIComponent(secret).replaceAll('~', '%7E'),
    [...Buffer.from(secret)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
    secret.replaceAll('/', '\\/'),
    base64(`Bearer ${secret}`),
    Buffer.from(`Bearer ${secret}`).toString('base64url'),
  ];

  it('leaves none of the forms the Node relay’s Redactor knows, whatever surrounds them', () => {
    holds(
      fc.property(batches(fc.tuple(token, around, around, fc.nat())), (cases) => {
        const texts = cases.map(([secret, before, after, pick]) => {
          const forms = [...secretForms(secret), ...moreForms(secret)];
          return { token: secret, text: `${before}${forms[pick % forms.length]}${after}` };
        });
        const cleaned = readInPhp<string>('clean', texts);
        cleaned.forEach((text, index) => {
          const secret = texts[index]!.token;
          expect(text).toContain(rules.redactedText);
          for (const form of secretForms(secret)) expect(text.toLowerCase()).not.toContain(form.toLowerCase());
        });
      }),
      RUNS,
    );
  });

  it('words: printable ASCII without quotes, at most the contract’s length, never a form of the token', () => {
    holds(
      fc.property(batches(fc.tuple(token, fc.string({ maxLength: 300 }))), (cases) => {
        const words = readInPhp<string | null>(
          'words',
          cases.map(([secret, text]) => ({ token: secret, text: `${text} ${secret.toUpperCase()} ${text}` })),
        );
        words.forEach((said, index) => {
          expect(said).not.toBeNull();
          expect(said!).toMatch(/^[\x20-\x7e]*…?$/);
          expect(said!).not.toMatch(/["\\`]/);
          expect(said!.replace(/…$/, '').length).toBeLessThanOrEqual(rules.maxServiceWordsLength);
          expect(said!.toLowerCase()).not.toContain(cases[index]![0].toLowerCase());
        });
      }),
      RUNS,
    );
  });
});
