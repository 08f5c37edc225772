// @vitest-environment node
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../../relay/src/redaction.js';
import { cacheControl, etagFor, freshnessHeaders, matchesIfNoneMatch, retryAfterHeader } from '../../../relay/src/responses.js';
import { retryDelay } from '../../../src/contract/backoff.js';
import { errorKindForStatus, type RealtimeErrorKind } from '../../../src/contract/errors.js';
import { parseReport } from '../../../src/contract/report.js';
import { parseRetryAfter } from '../../../src/contract/retry-after.js';
import { readServiceWords } from '../../../src/contract/service-message.js';
import { headerValue, holds } from '../../../test/support/properties.js';
import { writeRulesFile } from '../build.js';

/**
 * Issue 37 §4: the plugin's relay cannot drift from the Node relay's silently. Each concept the two
 * write in their own language has a table of cases in `src/contract/cases/`; every case runs here
 * against the TypeScript function and, through `php`, against the plugin's, so a case added once
 * checks both. Needs only `php`, not WordPress.
 */

interface Case {
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly expected: unknown;
}

const CASES_DIR = new URL('../../../src/contract/cases/', import.meta.url);
const DRIVER = new URL('./support/contract-cases.php', import.meta.url).pathname;

// Each table's TypeScript function, fed a case's input. The PHP driver names the plugin's for each.
// biome-ignore lint/suspicious/noExplicitAny: each table's input has its own shape, written in its JSON.
const TYPESCRIPT: Record<string, (input: any) => unknown> = {
  backoff: ({ kind, retryAfterMs, failures, intervalMs, random }) =>
    // Waits are whole milliseconds: the plugin keeps integers, and a fraction of a millisecond is no wait.
    Math.floor(retryDelay({ kind: kind as RealtimeErrorKind, retryAfterMs }, failures, intervalMs, random)),
  'error-kinds': ({ status }) => errorKindForStatus(status),
  'retry-after': ({ retryAfter, date, nowMs }) =>
    parseRetryAfter(new Headers(Object.entries({ 'retry-after': retryAfter, date }).filter(([, value]) => value !== null)), nowMs),
  'retry-after-sent': ({ retryAtMs, nowMs }) => retryAfterHeader(retryAtMs, nowMs),
  etag: ({ body }) => etagFor(body),
  'if-none-match': ({ ifNoneMatch, etag }) => matchesIfNoneMatch(ifNoneMatch, etag),
  'service-words': ({ body, contentType }) => readServiceWords(body, contentType),
  report: ({ body, websiteId }) => {
    const report = parseReport(JSON.parse(body), websiteId);
    return typeof report === 'string' ? report : null;
  },
  'cache-headers': ({ interval, maxStale, ageMs }) => freshnessHeaders(ageMs, cacheControl({ interval, maxStale })),
  redaction: ({ secrets, text }) => {
    const redactor = new Redactor(secrets);
    return { clean: redactor.clean(text), words: redactor.words(text) };
  },
};

const TABLES: Record<string, readonly Case[]> = Object.fromEntries(
  readdirSync(CASES_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => [file.replace(/\.json$/, ''), (JSON.parse(readFileSync(new URL(file, CASES_DIR), 'utf8')) as { cases: Case[] }).cases]),
);

/** What of an answer a case expects: the keys it names, when it names some of an object's (the redactor's `clean` or `words`). */
function asExpected(answer: unknown, expected: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || typeof expected !== 'object' || expected === null) return answer;
  return Object.fromEntries(Object.keys(expected).map((key) => [key, (answer as Record<string, unknown>)[key]]));
}

/** The plugin's answers to each table's inputs, from one PHP process. */
function runPhp(inputs: Record<string, readonly unknown[]>): Record<string, unknown[]> {
  return JSON.parse(execFileSync('php', [DRIVER], { input: JSON.stringify(inputs), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
}

let php: Record<string, unknown[]>;

beforeAll(() => {
  writeRulesFile();
  php = runPhp(Object.fromEntries(Object.entries(TABLES).map(([table, cases]) => [table, cases.map((each) => each.input)])));
});

it('every table has its function in both languages', () => {
  expect(Object.keys(TABLES).sort()).toEqual(Object.keys(TYPESCRIPT).sort());
  for (const table of Object.keys(TABLES)) expect(php[table], table).toHaveLength(TABLES[table]!.length);
});

describe.each(Object.entries(TABLES))('%s', (table, cases) => {
  it.each(cases.map((each, index) => [each.name, each, index] as const))('%s', async (_name, { input, expected }, index) => {
    expect(asExpected(await TYPESCRIPT[table]!(input), expected), 'TypeScript').toEqual(expected);
    expect(asExpected(php[table]![index], expected), 'PHP').toEqual(expected);
  });
});

/**
 * Beyond the tables: for generated inputs, the two languages give the same answer, so a difference
 * no case names yet still fails (then it becomes a case, and the wrong side is fixed). Each run
 * sends a batch to one PHP process; a failing batch shrinks to its failing input.
 */
describe('both relays agree on any input', () => {
  const RUNS = 20;
  function agree(table: string, input: fc.Arbitrary<Record<string, unknown>>): void {
    holds(
      fc.property(fc.array(input, { minLength: 1, maxLength: 50 }), (inputs) => {
        const plugin = runPhp({ [table]: inputs })[table]!;
        for (const [index, each] of inputs.entries()) expect(plugin[index], JSON.stringify(each)).toEqual(TYPESCRIPT[table]!(each));
      }),
      RUNS,
    );
  }

  it('on every status from 100 to 999', () => {
    const inputs = Array.from({ length: 900 }, (_, index) => ({ status: 100 + index }));
    expect(runPhp({ 'error-kinds': inputs })['error-kinds']).toEqual(inputs.map(TYPESCRIPT['error-kinds']!));
  });

  it('on back-off', () => {
    const kind = fc.constantFrom(
      'server',
      'network',
      'timeout',
      'invalid-response',
      'unauthorized',
      'not-found',
      'bad-request',
      'rate-limited',
    );
    agree(
      'backoff',
      fc.record({
        kind,
        retryAfterMs: fc.option(fc.integer({ min: 0, max: 100_000_000 })),
        failures: fc.integer({ min: 0, max: 100 }),
        intervalMs: fc.integer({ min: 1_000, max: 3_600_000 }),
        random: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      }),
    );
  });

  it('on Retry-After and Date as a server may send them', () => {
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const httpDateLike = fc
      .tuple(
        fc.constantFrom('Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun', 'Xyz'),
        two(39),
        fc.constantFrom('Jan', 'Feb', 'Mar', 'Apr', 'Jun', 'Sep', 'Dec', 'Foo'),
        fc.oneof(fc.integer({ min: 1990, max: 2040 }).map(String), fc.constantFrom('0000', '26', '10000')),
        two(29),
        two(69),
        two(69),
        fc.constantFrom(' GMT', ' UTC', 'GMT', ''),
      )
      .map(([day, date, month, year, hour, minute, second, zone]) => `${day}, ${date} ${month} ${year} ${hour}:${minute}:${second}${zone}`);
    const value = fc.option(fc.oneof(headerValue, httpDateLike));
    agree('retry-after', fc.record({ retryAfter: value, date: value, nowMs: fc.integer({ min: 0, max: 4e12 }) }));
  });

  it('on If-None-Match', () => {
    const piece = fc.constantFrom('"abc"', 'W/"abc"', '"x"', '*', ' ', '\t', ',', 'W/', '"', 'abc', '\u00a0');
    agree(
      'if-none-match',
      fc.record({ ifNoneMatch: fc.option(fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(''))), etag: fc.constant('"abc"') }),
    );
  });

  it('on a service’s error body', () => {
    const said = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]));
    const error = fc.oneof(said, fc.record({ message: said, code: fc.integer() }, { requiredKeys: [] }));
    const json = fc
      .record({ error, message: said, details: fc.jsonValue({ maxDepth: 6 }) }, { requiredKeys: [] })
      .map((body) => JSON.stringify(body));
    agree(
      'service-words',
      fc.record({
        body: fc.oneof(json, fc.string({ maxLength: 20 })),
        contentType: fc.constantFrom(null, 'text/plain', 'text/plain; charset=utf-8', 'application/json', 'text/html', 'Text/Plain'),
      }),
    );
  });

  it('on a service’s report', () => {
    const digits = (length: number, max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(length, '0'));
    const timestamp = fc
      .tuple(digits(4, 10_000), digits(2, 13), digits(2, 32), digits(2, 25), digits(2, 60), digits(2, 60), digits(3, 999))
      .map(([year, month, day, hour, minute, second, ms]) => `${year}-${month}-${day}T${hour}:${minute}:${second}.${ms}Z`);
    const count = fc.oneof(
      fc.integer({ min: -5, max: 1_000 }).map(String),
      fc.constantFrom('0', '-0', '42.0', '1e2', '1.5', '9007199254740991', '9007199254740992', '1e400', '"5"', 'null', 'true'),
    );
    agree(
      'report',
      fc
        .record({ count, websiteId: fc.constantFrom('bb-shop', 'BB-shop', 'other'), timestamp })
        .map(({ count: visitors, websiteId, timestamp: at }) => ({
          body: `{"currentVisitors":${visitors},"websiteId":"${websiteId}","timestamp":"${at}"}`,
          websiteId: 'bb-shop',
        })),
    );
  });

  it('on a token in a text, each character spelled as any encoder may', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{12,40}=*$/);
    const hex = (character: string) => character.charCodeAt(0).toString(16).padStart(2, '0');
    const spell = [
      (character: string) => character,
      (character: string) => (character === character.toLowerCase() ? character.toUpperCase() : character.toLowerCase()),
      (character: string) => `%${hex(character).toUpperCase()}`,
      (character: string) => `%${hex(character)}`,
      (character: string) => `%25${hex(character)}`,
      (character: string) => (character === '/' ? '\\/' : character),
    ];
    const spelled = token.chain((secret) =>
      fc.tuple(fc.constant(secret), fc.array(fc.nat(spell.length - 1), { minLength: secret.length, maxLength: secret.length })),
    );
    const around = fc.stringMatching(/^[ -~\u00a0\u2003\u200b\u202e\t\né日]{0,20}$/);
    agree(
      'redaction',
      fc.tuple(spelled, around, around).map(([[secret, ways], before, after]) => ({
        secrets: [secret],
        text: `${before}${[...secret].map((character, index) => spell[ways[index]!]!(character)).join('')}${after}`,
      })),
    );
  });
});
