// @vitest-environment node
import { afterEach, describe, expect, it } from 'vitest';
import { serveOnNode } from '../../server-kit/serve.js';
import { createRelay } from '../src/relay.js';
import {
  type Answer,
  answerText,
  defaultRelayConfig,
  leakedTokens,
  OTHER_SHOP,
  type RelayHarness,
  SHOP,
  startRelayHarness,
  TOKENS,
  toAnswer,
} from './support/relay-harness.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function harness(options: Parameters<typeof startRelayHarness>[0] = {}): Promise<RelayHarness> {
  const h = await startRelayHarness(options);
  cleanups.push(() => h.close());
  return h;
}

function expectNoTokenIn(answers: readonly Answer[], logs: readonly string[]) {
  expect(answers.flatMap((answer) => leakedTokens(answerText(answer)))).toEqual([]);
  expect(logs.flatMap((line) => leakedTokens(line))).toEqual([]);
}

type StubMode = 'echo-in-report' | 'echo-in-error' | 'echo-encoded-in-error' | 'redirect';

/** A misbehaving service on loopback that tries every way of handing the token back. */
async function startEchoingService(redirectTarget = 'http://127.0.0.1:9/') {
  let mode: StubMode = 'echo-in-report';
  const seenAuthorization: string[] = [];
  const service = await serveOnNode(
    (request) => {
      const auth = request.headers.get('authorization') ?? '';
      seenAuthorization.push(auth);
      const websiteId = new URL(request.url).searchParams.get('websiteId');
      const token = auth.replace(/^Bearer /, '');
      switch (mode) {
        case 'echo-in-report':
          return Response.json(
            { currentVisitors: 2, websiteId, timestamp: '2025-01-15T12:00:00.000Z', debug: auth, token },
            {
              headers: { 'X-Echo': token },
            },
          );
        case 'echo-in-error':
          return Response.json({ error: `Token ${token} is not valid for ${websiteId} (${auth})` }, { status: 401 });
        case 'echo-encoded-in-error':
          return Response.json({ error: `Bad request to /realtime?token=${encodeURIComponent(token)}` }, { status: 500 });
        case 'redirect':
          return new Response(null, { status: 302, headers: { Location: `${redirectTarget}?token=${token}` } });
      }
    },
    { port: 0, graceMs: 0 },
  );
  cleanups.push(() => service.close());
  const setMode = (next: StubMode) => {
    mode = next;
  };
  return { url: service.url, seenAuthorization, setMode };
}

describe('the upstream token stays on the server', () => {
  it('appears in no header or body of any kind of answer, nor in any log line', async () => {
    const h = await harness({ relay: { upstreamTimeoutMs: 100 } });
    const cors = { headers: { Origin: 'https://shop.example' } };
    const ok = await h.get(`?websiteId=${SHOP.id}`, cors);
    await h.get(`?websiteId=${SHOP.id}`, { headers: { 'If-None-Match': ok.headers.get('etag')! } });
    await h.get(`?websiteId=${SHOP.id}`, { method: 'HEAD' });
    await h.get('');
    await h.get(`?websiteId=${SHOP.id}&websiteId=${OTHER_SHOP.id}`);
    await h.get('?websiteId=not-relayed');
    await h.get(`?websiteId=${SHOP.id}`, { method: 'POST', body: SHOP.token });
    await h.request('/api/v1/realtime/', cors);
    await h.get('', { method: 'OPTIONS', headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'GET' } });
    await h.get('', { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' } });
    h.emulator.emulator.setFault({ kind: 'server-error' });
    await h.get(`?websiteId=${OTHER_SHOP.id}`, cors);
    h.clock.advance(60_000);
    await h.get(`?websiteId=${SHOP.id}`, cors);
    h.emulator.emulator.setFault({ kind: 'rate-limited' });
    h.clock.advance(600_000);
    await h.get(`?websiteId=${SHOP.id}`, cors);
    h.emulator.emulator.setFault({ kind: 'hang' });
    h.clock.advance(3_600_000);
    await h.get(`?websiteId=${SHOP.id}`, cors);
    h.emulator.emulator.clearFault();

    expect(new Set(h.answers.map((answer) => answer.status))).toEqual(new Set([200, 304, 400, 404, 405, 204, 403, 502, 503, 504]));
    expect(h.logs.length).toBeGreaterThanOrEqual(3);
    expectNoTokenIn(h.answers, h.logs);
    // The scan itself can fail: the upstream did receive the tokens.
    expect(h.upstreamCalls.map((call) => call.authorization)).toContain(`Bearer ${SHOP.token}`);
  });

  it('rebuilds the report from its three fields, so a service echoing the token in extra fields or headers leaks nothing', async () => {
    const service = await startEchoingService();
    const h = await harness({ config: { upstream: service.url } });
    const answer = await h.get(`?websiteId=${SHOP.id}`);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(JSON.stringify({ currentVisitors: 2, websiteId: SHOP.id, timestamp: '2025-01-15T12:00:00.000Z' }));
    expect(service.seenAuthorization).toEqual([`Bearer ${SHOP.token}`]);
    expectNoTokenIn(h.answers, h.logs);
  });

  it.each<StubMode>(['echo-in-error', 'echo-encoded-in-error'])(
    'keeps a token the service echoes in an error out of answers, and redacted in the log (%s)',
    async (mode) => {
      const service = await startEchoingService();
      service.setMode(mode);
      const h = await harness({ config: { upstream: service.url } });
      const answers = [await h.get(`?websiteId=${SHOP.id}`), await h.get(`?websiteId=${OTHER_SHOP.id}`)];
      expect(answers.map((answer) => answer.status)).toEqual([502, 502]);
      // Answers carry the relay's own words only (issue 25); the service's, redacted, go to the log.
      expect(answers[0]!.text).not.toContain('[token]');
      expect(h.logs.join('\n')).toContain('[token]');
      expectNoTokenIn(h.answers, h.logs);
    },
  );

  it('does not follow a redirect, which would carry the token to another host', async () => {
    const elsewhere = await startEchoingService();
    const service = await startEchoingService(elsewhere.url);
    service.setMode('redirect');
    const h = await harness({ config: { upstream: service.url } });
    const answer = await h.get(`?websiteId=${SHOP.id}`);
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({
      error: expect.stringContaining('answered 302: set upstream to the final URL, the relay does not follow redirects'),
    });
    expect(elsewhere.seenAuthorization).toEqual([]);
    expectNoTokenIn(h.answers, h.logs);
  });

  it("ignores any Authorization a browser sends: same answer, and only the relay's own token goes upstream", async () => {
    const h = await harness();
    const plain = await h.get(`?websiteId=${SHOP.id}`);
    const withHeaders = await Promise.all(
      ['Bearer someone-elses-token', `Bearer ${OTHER_SHOP.token}`, 'Basic dXNlcjpwYXNz', 'garbage'].map((authorization) =>
        h.get(`?websiteId=${SHOP.id}`, { headers: { Authorization: authorization } }),
      ),
    );
    for (const answer of withHeaders) {
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(plain.text);
      expect(answer.headers.get('etag')).toBe(plain.headers.get('etag'));
    }
    h.clock.advance(60_000);
    await h.get(`?websiteId=${SHOP.id}`, { headers: { Authorization: 'Bearer someone-elses-token' } });
    expect(h.upstreamCalls.map((call) => call.authorization)).toEqual([`Bearer ${SHOP.token}`, `Bearer ${SHOP.token}`]);
  });

  it('keeps the token out of the message of an unexpected error too', async () => {
    const logs: string[] = [];
    const relay = createRelay({
      config: defaultRelayConfig('https://analytics.example'),
      log: (line) => logs.push(line),
      fetch: () => {
        throw new Error(`fetch exploded while sending ${SHOP.token}`);
      },
    });
    const answer = await toAnswer(await relay(new Request(`http://relay.test/api/v1/realtime?websiteId=${SHOP.id}`)));
    expect(answer.status).toBe(502);
    expect(answer.json).toEqual({ error: expect.stringMatching(/^The analytics service could not be reached;/) });
    expectNoTokenIn([answer], logs);
    expect(TOKENS).toContain(SHOP.token);
  });
});
