// @vitest-environment node
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { isRealtimeErrorKind } from '../../src/contract/errors.js';
import { holds, numberLikeText } from '../../test/support/properties.js';
import { Redactor, secretForms } from '../src/redaction.js';
import { MAX_COUNT } from '../src/sources/answer.js';
import { sourceCall } from '../src/sources/call.js';
import { SOURCE_DEFINITIONS } from '../src/sources/kinds.js';
import { parseSource } from '../src/sources/parse-source.js';
import { SOURCE_KINDS, type SourceKind, type SourceSettings } from '../src/sources/source.js';

/**
 * What must hold for anything a service answers and anything a config holds (issue 32): each
 * source's reader returns a whole count from 0 to MAX_COUNT that the body really holds, or one of
 * the relay's failure kinds, never a throw and never a secret in its words; `parseSource` returns
 * a source or issues naming fields, never a throw and never a secret. The answers come from a
 * fetch stub: what is under test is the reading of bytes, which no real service is needed for.
 */

const SECRET = 'k3y-SECRET+9f/2b7c4e1';
let settings: Record<SourceKind, SourceSettings>;

beforeAll(async () => {
  const pair = (await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  )) as { privateKey: CryptoKey };
  const der = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
  const pem = `-----BEGIN PRIVATE KEY-----\n${btoa(String.fromCharCode(...der))}\n-----END PRIVATE KEY-----\n`;
  const raw: Record<SourceKind, Record<string, unknown>> = {
    plausible: { kind: 'plausible', siteId: 'shop.example', apiKey: SECRET },
    umami: { kind: 'umami', websiteId: 'w', apiKey: SECRET },
    matomo: { kind: 'matomo', base: 'https://matomo.example', siteId: 1, tokenAuth: SECRET },
    ga4: {
      kind: 'ga4',
      propertyId: '1',
      credentials: { type: 'service_account', client_email: 'a@b.example', private_key: pem, token_uri: 'https://oauth.example/token' },
    },
    fathom: { kind: 'fathom', siteId: 'ABC', apiKey: SECRET },
  };
  settings = Object.fromEntries(
    Object.entries(raw).map(([kind, value]) => {
      const parsed = parseSource(value, 'source');
      if (!('source' in parsed)) throw new Error(parsed.issues.join('; '));
      return [kind, parsed.source];
    }),
  ) as Record<SourceKind, SourceSettings>;
});

/** Counts as services could write them: numbers of every kind, and text that tries its luck as one. */
const aCount = fc.oneof(fc.integer({ min: -10, max: 1e12 }), fc.double(), numberLikeText, fc.constantFrom(null, true, [], {}));
/** What a service (or whatever sits in front of it) could answer, near each kind's shape and far from it. */
const aBody = fc.oneof(
  aCount.map((count) => JSON.stringify(count)),
  aCount.map((count) => JSON.stringify({ visitors: count })),
  aCount.map((count) => JSON.stringify([{ x: count }])),
  aCount.map((count) => JSON.stringify({ total: count })),
  aCount.map((count) => JSON.stringify([{ visitors: count, visits: count }])),
  aCount.map((count) => JSON.stringify({ metricHeaders: [{ name: 'activeUsers' }], rows: [{ metricValues: [{ value: count }] }] })),
  fc.constantFrom(JSON.stringify({ result: 'error', message: `token_auth ${SECRET} refused` }), `<html>${SECRET}</html>`),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 200 }),
  fc.constant(JSON.stringify({ error: { message: `bad key ${SECRET} / ${btoa(SECRET)} / ${encodeURIComponent(SECRET)}` } })),
);
const aStatus = fc.constantFrom(200, 200, 200, 201, 204, 301, 400, 401, 403, 404, 429, 500, 502, 503);
const aContentType = fc.constantFrom('application/json', 'text/plain', 'text/html', '');

/** The number a body holds in the place the kind reads it, when it holds exactly one. */
function numberIn(body: string): unknown {
  try {
    const json = JSON.parse(body) as unknown;
    return JSON.stringify(json).match(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi) ?? [];
  } catch {
    return [];
  }
}

describe.each(SOURCE_KINDS)('%s: any answer is a bounded count the body holds, or a failure of a known kind', (kind) => {
  it('never throws, never counts outside 0..MAX_COUNT, never says a secret', { timeout: 300_000 }, async () => {
    // Kept across runs as a relay keeps it: GA4 signs a new assertion only after a 401.
    const kept = new Map<string, unknown>();
    await holds(
      fc.asyncProperty(aBody, aStatus, aContentType, async (body, status, contentType) => {
        const fetch = async (url: string) =>
          url === 'https://oauth.example/token'
            ? Response.json({ access_token: SECRET, expires_in: 3599 })
            : new Response(status === 204 ? null : body, { status, headers: contentType ? { 'Content-Type': contentType } : {} });
        const definition = SOURCE_DEFINITIONS[kind];
        const call = sourceCall(
          { fetch, now: () => 1.7e12, timeoutMs: 1_000, redactor: new Redactor([]) },
          new Redactor(definition.secrets(settings[kind])),
        );
        const reading = await definition.read(settings[kind], call, kept);
        if ('count' in reading) {
          expect(Number.isSafeInteger(reading.count) && reading.count >= 0 && reading.count <= MAX_COUNT).toBe(true);
          expect(status >= 200 && status < 300).toBe(true);
          // A count comes from the body: 0 also from a GA4 report without rows.
          if (reading.count !== 0) expect(numberIn(body)).toContain(String(reading.count));
        } else {
          expect(isRealtimeErrorKind(reading.failure.kind)).toBe(true);
          const words = `${reading.failure.reason} ${reading.failure.said ?? ''}`;
          for (const form of secretForms(SECRET)) expect(words).not.toContain(form);
        }
      }),
      300,
    );
  });
});

describe('parseSource: any value is a source or issues naming fields, never a throw or a secret', () => {
  const aSecret = fc.oneof(fc.constant(SECRET), fc.constant(`${SECRET} `), fc.constant({ env: 'NOT_SET' }), fc.jsonValue());
  const aField = fc.oneof(fc.jsonValue(), fc.string({ maxLength: 40 }), fc.constant(SECRET));
  const aSource = fc.record(
    {
      kind: fc.oneof(fc.constantFrom(...SOURCE_KINDS), fc.string({ maxLength: 10 })),
      base: fc.oneof(fc.constantFrom('https://a.example', `https://u:${SECRET}@a.example`, 'http://a.example', 'ftp://a'), fc.string()),
      siteId: aField,
      websiteId: aField,
      propertyId: aField,
      apiKey: aSecret,
      tokenAuth: aSecret,
      password: aSecret,
      username: aField,
      credentials: aSecret,
      hourlyBudget: aField,
      lastMinutes: aField,
      minutes: aField,
    },
    { requiredKeys: ['kind'] },
  );

  it('holds', { timeout: 120_000 }, () => {
    holds(
      fc.property(fc.oneof(aSource, fc.jsonValue()), (value) => {
        const parsed = parseSource(value, 'websites[0].source');
        if ('source' in parsed) {
          expect(JSON.stringify(parsed.source)).not.toContain(SECRET);
          expect(JSON.stringify(parseSource(parsed.source, 'again'))).toBe(JSON.stringify({ source: parsed.source }));
        } else {
          expect(parsed.issues.length).toBeGreaterThan(0);
          for (const issue of parsed.issues) expect(issue.startsWith('websites[0].source')).toBe(true);
          for (const form of secretForms(SECRET)) expect(parsed.issues.join('\n')).not.toContain(form);
        }
      }),
      300,
    );
  });
});
