// @vitest-environment node
// What the relay does when the service, or the runtime's fetch, misbehaves in ways no spec covers.
import { describe, expect, it } from 'vitest';
import { createRelay } from '../src/index.js';

const TOKEN = 'sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const config = {
  upstream: 'https://analytics.example',
  websites: [{ id: 'shop', token: TOKEN }],
  allowOrigins: ['*'],
  interval: 60,
  maxStale: 600,
  hourlyBudget: 100,
};
const ask = (relay: (request: Request) => Response | Promise<Response>) =>
  relay(new Request('https://shop.example/api/v1/realtime?websiteId=shop'));

describe('a hostile or broken upstream', () => {
  it('never lets a piece of the token out, even where the echoed text is cut short', async () => {
    const logs: string[] = [];
    // The service's words are cut at 200 characters: the token straddles that mark, or ends just inside it.
    for (const padding of [100, 130, 150, 159, 170, 190, 199]) {
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
  it('sends the CORS headers with or without an Origin, so a shared cache serves every origin', async () => {
    const report = { currentVisitors: 1, websiteId: 'shop', timestamp: '2025-01-15T12:00:00.000Z' };
    const relay = createRelay({ config, log: () => {}, fetch: async () => Response.json(report) });
    const url = 'https://relay.example/api/v1/realtime?websiteId=shop';
    const withoutOrigin = await relay(new Request(url));
    const fromElsewhere = await relay(new Request(url, { headers: { Origin: 'https://other.example' } }));
    for (const answer of [withoutOrigin, fromElsewhere]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(answer.headers.get('access-control-expose-headers')).toBe('Retry-After, ETag, Age');
    }
  });
});
