// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { createRelay } from '../src/relay.js';

/**
 * Issue 29 §5: three shapes in which a service hands the token back that the relay's log lines missed.
 * Each goes through the whole relay (its real fetch path, the real Redactor): a service that answers
 * 500 with the token in its words, and the log lines the relay prints about it.
 */

const WEBSITE = { id: 'shop-tilde', token: 'tok~SECRET/9a8b7c6d5e4f' } as const;
/** How a reader would spot any piece of the token: both halves, in the forms the tests write. */
const HALVES = ['tok~SECRET', 'SECRET/9a8b', '9a8b7c6d5e4f'];

async function logsFor(body: string, contentType: string): Promise<string[]> {
  const logs: string[] = [];
  const relay = createRelay({
    config: { upstream: 'https://analytics.example', websites: [WEBSITE] },
    log: (line) => logs.push(line),
    fetch: async () => new Response(body, { status: 500, headers: { 'Content-Type': contentType } }),
  });
  const answer = await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${WEBSITE.id}`));
  expect(answer.status).toBe(502);
  expect(logs.length).toBeGreaterThan(0);
  return logs;
}

/** Every form the token takes in these tests, whole or in part, in any letter case. */
function leaks(logs: string[]): string[] {
  const text = logs.join('\n').toLowerCase();
  const pieces = [...HALVES, ...HALVES.map((half) => half.replaceAll('~', '%7E').replaceAll('/', '%2F')), 'secret\\/9a8b'];
  return pieces.filter((piece) => text.includes(piece.toLowerCase()));
}

describe("the relay's log lines keep the token out", () => {
  it.each([
    ['PHP and Java URL encoders write ~ as %7E', 'tok%7ESECRET%2F9a8b7c6d5e4f'],
    ['the same, in lower-case hex', 'tok%7eSECRET%2f9a8b7c6d5e4f'],
  ])('%s', async (_shape, form) => {
    const logs = await logsFor(JSON.stringify({ error: `bad token ${form}` }), 'application/json');
    expect(logs.join('\n')).toContain('[token]');
    expect(leaks(logs)).toEqual([]);
  });

  it('a JSON-escaped slash (\\/) inside a plain-text body', async () => {
    const logs = await logsFor(`rejected ${WEBSITE.token.replace('/', '\\/')} for ${WEBSITE.id}`, 'text/plain');
    expect(logs.join('\n')).toContain('[token]');
    expect(leaks(logs)).toEqual([]);
  });

  // Issue 35 finding 12: a service that HTML-escapes what it echoes left about 5 characters in the log.
  const everyCharacter = (format: (code: number) => string) => [...WEBSITE.token].map((char) => format(char.codePointAt(0)!)).join('');
  it.each([
    ['every character as a hex reference', everyCharacter((code) => `&#x${code.toString(16)};`)],
    ['every character as a decimal reference, without semicolons', everyCharacter((code) => `&#${code}`)],
    ['named references, one escaped twice over', 'tok&amp;#x7E;SECRET&sol;9a8b7c6d5e4f'],
  ])('%s', async (_shape, form) => {
    const logs = await logsFor(JSON.stringify({ error: `bad token ${form}` }), 'application/json');
    expect(logs.join('\n')).toContain('[token]');
    expect(leaks(logs)).toEqual([]);
    expect(logs.join('\n')).not.toMatch(/&#|&sol;|&amp;/);
  });

  it('a token that straddles the 4,096th character of a long plain-text body, after a run of white space', async () => {
    const before = `denied ${' '.repeat(4_096 - 'denied '.length - 10)}`;
    const body = `${before}${WEBSITE.token} is not valid`;
    expect(body.indexOf(WEBSITE.token)).toBeLessThan(4_096);
    expect(body.indexOf(WEBSITE.token) + WEBSITE.token.length).toBeGreaterThan(4_096);
    const logs = await logsFor(body, 'text/plain; charset=utf-8');
    expect(leaks(logs)).toEqual([]);
  });
});
