// @vitest-environment node
// What the relay does when the service, or the runtime's fetch, misbehaves in ways no spec covers.
import { describe, expect, it } from 'vitest';
import { createRelay } from '../../src/server/relay/index.js';
import { CorsPolicy } from '../../src/server/relay/cors.js';

const TOKEN = 'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const config = {
  upstream: 'https://analytics.example',
  websites: [{ id: 'shop', token: TOKEN }],
  allowOrigins: ['*'],
  interval: 60,
  maxStale: 600,
  hourlyBudget: 100,
};
const ask = (relay: (request: Request) => Promise<Response>) => relay(new Request('https://shop.example/api/v1/realtime?websiteId=shop'));

describe('a hostile or broken upstream', () => {
  it('never lets a piece of the token out, even where the echoed text is cut short', async () => {
    const logs: string[] = [];
    for (const padding of [100, 130, 150, 159]) {
      const said = `${'x'.repeat(padding)} invalid token ${TOKEN}`;
      const relay = createRelay({
        config,
        log: (line) => logs.push(line),
        fetch: async () => Response.json({ error: said }, { status: 401 }),
      });
      const answer = await ask(relay);
      const text = `${await answer.text()}\n${[...answer.headers].join('\n')}\n${logs.join('\n')}`;
      expect(text).not.toContain(TOKEN.slice(0, 12));
    }
  });

  it('answers on time when fetch ignores its abort signal', async () => {
    let calls = 0;
    const relay = createRelay({
      config,
      upstreamTimeoutMs: 50,
      log: () => {},
      fetch: () => {
        calls += 1;
        return new Promise<Response>(() => {});
      },
    });
    const first = await ask(relay);
    expect(first.status).toBe(504);
    expect(calls).toBe(1);
  });
});

describe('CORS with "*"', () => {
  it('sends the CORS headers with or without an Origin, so a shared cache serves every origin', () => {
    const policy = new CorsPolicy(['*']);
    expect(policy.headersFor(null)['Access-Control-Allow-Origin']).toBe('*');
    expect(policy.headersFor('https://other.example')['Access-Control-Allow-Origin']).toBe('*');
  });
});
