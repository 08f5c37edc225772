// @vitest-environment node
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../../relay/src/redaction.js';
import { cacheControl, etagFor, freshnessHeaders, matchesIfNoneMatch, retryAfterHeader } from '../../../relay/src/responses.js';
import { retryDelay } from '../../../src/contract/backoff.js';
import { errorKindForStatus, type RealtimeErrorKind } from '../../../src/contract/errors.js';
import { parseRetryAfter } from '../../../src/contract/retry-after.js';
import { readServiceWords } from '../../../src/contract/service-message.js';
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

let php: Record<string, unknown[]>;

beforeAll(() => {
  writeRulesFile();
  const inputs = Object.fromEntries(Object.entries(TABLES).map(([table, cases]) => [table, cases.map((each) => each.input)]));
  php = JSON.parse(execFileSync('php', [DRIVER], { input: JSON.stringify(inputs), encoding: 'utf8' }));
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
