// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { parseRelayConfig, RelayConfigError } from '../src/config.js';
import { ElementFiles } from '../src/element-files/element-files.js';
import { relayConfigFromEnvironment } from '../src/environment-overrides.js';
import { createRelay } from '../src/relay.js';

/** The relay's copy of the element, from a bundle made up here (the real one: owner-page-snippet.test.ts), and the operator's CDN instead. */
const BUNDLED = {
  folder: '1.2.3-abcdef0123',
  files: { 'live-visitors.js': 'export {};\n', 'live-visitors-lang-de.js': 'export default {};\n' },
};
const files = new ElementFiles(Promise.resolve(BUNDLED));
const get = (path: string, method = 'GET') => files.answer(path, new Request(`http://relay.test${path}`, { method }));
const KEY = `k:${btoa('k'.repeat(32))}`;

describe("the relay's copy of the element", () => {
  it('serves each file of its build, a year and immutable, to any origin, as JavaScript', async () => {
    expect(await files.scriptPath()).toBe('element/1.2.3-abcdef0123/live-visitors.js');
    for (const name of Object.keys(BUNDLED.files)) {
      const answer = await get(`/element/1.2.3-abcdef0123/${name}`);
      expect(answer.status).toBe(200);
      expect(Object.fromEntries(answer.headers)).toMatchObject({
        'access-control-allow-origin': '*',
        'cache-control': 'public, max-age=31536000, immutable',
        'content-type': 'text/javascript; charset=utf-8',
        'x-content-type-options': 'nosniff',
      });
      expect(await answer.text()).toBe(BUNDLED.files[name as keyof typeof BUNDLED.files]);
    }
    const head = await get('/element/1.2.3-abcdef0123/live-visitors.js', 'HEAD');
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect((await get('/element/1.2.3-abcdef0123/live-visitors.js', 'OPTIONS')).status).toBe(204);
    expect((await get('/element/1.2.3-abcdef0123/live-visitors.js', 'POST')).status).toBe(405);
  });

  it.each([
    ['another build', '/element/1.2.2-0000000000/live-visitors.js'],
    ['a file it does not have', '/element/1.2.3-abcdef0123/live-visitors-lang-xx.js'],
    ['a deeper path', '/element/1.2.3-abcdef0123/live-visitors.js/x'],
    ["an object's own property", '/element/1.2.3-abcdef0123/constructor'],
    ['the folder alone', '/element/1.2.3-abcdef0123/'],
  ])('answers %s with an uncached 404 that says what it serves', async (_name, path) => {
    const answer = await get(path);
    expect([answer.status, answer.headers.get('cache-control')]).toEqual([404, 'no-store']);
    expect(await answer.text()).toContain('/element/1.2.3-abcdef0123/live-visitors.js');
  });

  it('without its build step says how to get the files, and gives the owner page no script to paste', async () => {
    const unbuilt = new ElementFiles(Promise.resolve(null));
    expect(await unbuilt.scriptPath()).toBeNull();
    const answer = await unbuilt.answer('/element/x/live-visitors.js', new Request('http://relay.test/element/x/live-visitors.js'));
    expect(answer.status).toBe(404);
    expect(await answer.text()).toMatch(/built without the element's files: its operator runs npm run build, or sets scriptUrl/);
  });
});

describe('scriptUrl: a CDN instead of the relay', () => {
  it('is read from the config or LIVE_VISITORS_SCRIPT_URL, https only', () => {
    const url = 'https://cdn.example/live-visitors@1.2.3/live-visitors.js';
    expect(
      parseRelayConfig({
        upstream: 'https://a.example',
        websites: [],
        selfServe: true,
        encryptionKeys: [KEY],
        registrationsMayBeLost: true,
        scriptUrl: url,
      }).scriptUrl,
    ).toBe(url);
    expect(
      relayConfigFromEnvironment({
        LIVE_VISITORS_UPSTREAM: 'https://a.example',
        LIVE_VISITORS_WEBSITES: '[{"id":"s","token":"t"}]',
        LIVE_VISITORS_SCRIPT_URL: url,
      }).scriptUrl,
    ).toBe(url);
    for (const wrong of ['http://cdn.example/live-visitors.js', 'cdn.example/live-visitors.js', 'https://cdn.example/', 42]) {
      expect(() => parseRelayConfig({ upstream: 'https://a.example', websites: [], scriptUrl: wrong })).toThrow(RelayConfigError);
    }
    expect(() =>
      relayConfigFromEnvironment({ LIVE_VISITORS_UPSTREAM: 'https://a.example', LIVE_VISITORS_SCRIPT_URL: 'ftp://x/y.js' }),
    ).toThrow(/scriptUrl \(from LIVE_VISITORS_SCRIPT_URL\) must be the https URL of live-visitors\.js/);
  });

  it("is what the owner page's snippets load", async () => {
    const url = 'https://cdn.example/live-visitors@1.2.3/live-visitors.js';
    const relay = createRelay({
      config: { upstream: 'https://a.example', selfServe: true, encryptionKeys: [KEY], registrationsMayBeLost: true, scriptUrl: url },
    });
    const page = await (await relay(new Request('http://relay.test/'))).text();
    expect(page).toContain(`<meta name="live-visitors-script" content="${url}">`);
  });
});
