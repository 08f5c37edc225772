import { describe, expect, it } from 'vitest';
import { errorKindForStatus, type RealtimeErrorKind } from '../src/contract/errors.js';
import { readWebsiteIdParameter, realtimeUrl } from '../src/contract/request.js';
import { retryAfterSeconds } from '../src/contract/retry-after.js';
import { REDACTED, redact, serviceMessage } from '../src/contract/service-message.js';

/** The wire contract the element's client, the emulator and the relay share. */
describe('status → error kind', () => {
  it.each<[number, RealtimeErrorKind]>([
    [400, 'bad-request'],
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [404, 'not-found'],
    [429, 'rate-limited'],
    [500, 'server'],
    [502, 'server'],
    [503, 'server'],
    [301, 'invalid-response'],
    [302, 'invalid-response'],
    [418, 'invalid-response'],
  ])('%i is %s', (status, kind) => {
    expect(errorKindForStatus(status)).toBe(kind);
  });
});

describe('the websiteId parameter', () => {
  it.each<[string, { value: string } | { error: string }]>([
    ['websiteId=shop', { value: 'shop' }],
    ['websiteId=a%20b%26c', { value: 'a b&c' }],
    ['', { error: 'websiteId is required' }],
    ['websiteId=', { error: 'websiteId is required' }],
    ['websiteId=a&websiteId=b', { error: 'websiteId must be given only once' }],
    [`websiteId=${'x'.repeat(257)}`, { error: 'websiteId must be at most 256 characters' }],
  ])('?%s', (query, expected) => {
    expect(readWebsiteIdParameter(new URLSearchParams(query))).toEqual(expected);
  });

  it('round-trips through realtimeUrl', () => {
    const url = new URL(realtimeUrl('https://relay.example/stats', 'a b&c=d'));
    expect(url.pathname).toBe('/stats/api/v1/realtime');
    expect(readWebsiteIdParameter(url.searchParams)).toEqual({ value: 'a b&c=d' });
  });
});

describe('Retry-After to send', () => {
  it.each([
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [-5000, 1],
    [90_000, 90],
  ])('%i ms ahead is %i s', (aheadMs, seconds) => {
    expect(retryAfterSeconds(10_000 + aheadMs, 10_000)).toBe(seconds);
  });
});

describe('a service message made safe to print', () => {
  const token = 'tok_3f9a+/b=';

  it('redacts a secret plain and URL-encoded, the longer one first', () => {
    expect(redact(`a ${token} b ${encodeURIComponent(token)} c`, [token])).toBe(`a ${REDACTED} b ${REDACTED} c`);
    expect(redact('abcdef abc', ['abc', 'abcdef'])).toBe(`${REDACTED} ${REDACTED}`);
    expect(redact('nothing to hide', [undefined, ''])).toBe('nothing to hide');
  });

  it('redacts before it shortens: a token across the 200-character cut never leaks a piece', () => {
    for (const at of [190, 195, 199, 200, 201]) {
      const text = `${'x'.repeat(at)}${token}${'y'.repeat(50)}`;
      const said = serviceMessage(JSON.stringify({ error: text }), 'application/json', [token])!;
      for (let length = 4; length <= token.length; length += 1) expect(said).not.toContain(token.slice(0, length));
    }
  });

  it.each<[string, string | null, string | null]>([
    ['{"error":"Website not found"}', 'application/json', 'Website not found'],
    ['{"message":"Down for maintenance"}', 'application/json; charset=utf-8', 'Down for maintenance'],
    ['Bad gateway', 'text/plain', 'Bad gateway'],
    ['<html><body>Bad gateway</body></html>', 'text/html', null],
    ['{"error": 42}', 'application/json', null],
    ['{"error":"  "}', 'application/json', null],
    ['{"error":"line\\nbreak\\u0085and \\"quotes\\""}', 'application/json', 'line break and quotes'],
  ])('%s (%s) says %j', (body, type, said) => {
    expect(serviceMessage(body, type, [])).toBe(said);
  });

  it('shortens what is left to 200 characters and marks the cut', () => {
    const said = serviceMessage(JSON.stringify({ error: 'z'.repeat(500) }), 'application/json', []);
    expect(said).toBe(`${'z'.repeat(200)}…`);
  });
});
