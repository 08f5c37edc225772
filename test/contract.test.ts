import { describe, expect, it } from 'vitest';
import { errorKindForStatus, type RealtimeErrorKind } from '../src/contract/errors.js';
import { readWebsiteIdParameter, realtimeUrl } from '../src/contract/request.js';
import { parseRetryAfter, retryAfterDelay, retryAfterSeconds } from '../src/contract/retry-after.js';
import rules from '../src/contract/rules.json' with { type: 'json' };
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
    [90_000_000, 86_400],
  ])('%i ms ahead is %i s (capped at a day)', (aheadMs, seconds) => {
    expect(retryAfterSeconds(10_000 + aheadMs, 10_000, rules.dayCeilingMs / 1000)).toBe(seconds);
  });

  it('is capped at whatever cap it is given: the relay sends an hour at most', () => {
    expect(retryAfterSeconds(10_000 + 90_000_000, 10_000, rules.relayMaxRetryAfterSeconds)).toBe(3_600);
    expect(retryAfterSeconds(10_000 + 90_000, 10_000, rules.relayMaxRetryAfterSeconds)).toBe(90);
  });
});

describe('Retry-After received', () => {
  const headers = (init: Record<string, string>) => new Headers(init);

  it('delay-seconds, in both readers', () => {
    expect(retryAfterDelay(headers({ 'retry-after': ' 120 ' }))).toBe(120_000);
    expect(parseRetryAfter(headers({ 'retry-after': '120' }), 0)).toBe(120_000);
  });

  it("an HTTP date (the relay's reader only), against the server's Date header, not the device clock", () => {
    const sent = headers({ date: 'Wed, 21 Oct 2015 07:28:00 GMT', 'retry-after': 'Wed, 21 Oct 2015 07:30:00 GMT' });
    // The device clock is years off: only the server's own clock gives the right wait.
    expect(parseRetryAfter(sent, Date.UTC(2031, 0, 1))).toBe(120_000);
    expect(retryAfterDelay(sent)).toBeNull();
  });

  it('an HTTP date against the device clock when there is no Date header', () => {
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 21 Oct 2015 07:30:00 GMT' }), Date.UTC(2015, 9, 21, 7, 29, 0))).toBe(60_000);
  });

  it('never a negative wait for a date in the past', () => {
    expect(parseRetryAfter(headers({ date: 'Wed, 21 Oct 2015 07:28:00 GMT', 'retry-after': 'Wed, 21 Oct 2015 07:00:00 GMT' }), 0)).toBe(0);
  });

  // Date.parse would read "-5" or "1.5" as dates in 2001, and the wait would drop to nothing.
  it.each(['', 'soon', '-5', '1.5', '-5 GMT', '1.5 GMT'])('none for %j', (value) => {
    expect(parseRetryAfter(headers({ 'retry-after': value }), 0)).toBeNull();
    expect(retryAfterDelay(headers({ 'retry-after': value }))).toBeNull();
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
    // Controls become spaces, quotes apostrophes (they would break the quoting around the words).
    ['{"error":"line\\nbreak\\u0085and \\"quotes\\""}', 'application/json', "line break and 'quotes'"],
    ['{"error":{"message":"Invalid API key"}}', 'application/json', 'Invalid API key'],
    ['{"error":"naïve ünïcode"}', 'application/json', 'na?ve ?n?code'],
  ])('%s (%s) says %j', (body, type, said) => {
    expect(serviceMessage(body, type, [])).toBe(said);
  });

  it('shortens what is left to 200 characters and marks the cut', () => {
    const said = serviceMessage(JSON.stringify({ error: 'z'.repeat(500) }), 'application/json', []);
    expect(said).toBe(`${'z'.repeat(200)}…`);
  });
});
