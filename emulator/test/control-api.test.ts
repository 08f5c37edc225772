// @vitest-environment node
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAULT_KINDS } from '../src/endpoints/fault-table.js';
import { seededRandom } from './support/seeded-random.js';
import { bearer, DEMO, FREE, startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ random: seededRandom(7) });
});
afterAll(() => server.close());
beforeEach(() => {
  server.emulator.reset();
  server.emulator.traffic.stop();
  server.emulator.traffic.setTarget(0);
});

describe('GET /__emulator/state', () => {
  it('describes sites, counts, fault, traffic and the fault kinds', async () => {
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    const answer = await server.control('GET', '/state');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.json).toMatchObject({
      websites: [
        { id: DEMO.websiteId, token: DEMO.token, plan: 'enterprise', hourlyRequestLimit: 10_000, currentVisitors: 1 },
        { id: FREE.websiteId, token: FREE.token, plan: 'free', hourlyRequestLimit: 100, currentVisitors: 0 },
      ],
      fault: null,
      traffic: { running: false, targets: { [DEMO.websiteId]: 0, [FREE.websiteId]: 0 } },
    });
    expect(Object.keys((answer.json as { faultKinds: object }).faultKinds)).toEqual(FAULT_KINDS);
  });
});

describe('/__emulator/fault', () => {
  it('sets a fault, shows it in the state, and clears it', async () => {
    const set = await server.control('POST', '/fault', { kind: 'slow', delaySeconds: 2, durationSeconds: 60 });
    const startedAt = new Date(server.time.now()).toISOString();
    const endsAt = new Date(server.time.now() + 60_000).toISOString();
    expect(set.json).toEqual({ fault: { kind: 'slow', delaySeconds: 2, durationSeconds: 60, startedAt, endsAt } });
    expect((await server.control('GET', '/state')).json).toMatchObject({ fault: { kind: 'slow' } });
    const cleared = await server.control('DELETE', '/fault');
    expect(cleared.status).toBe(200);
    expect(cleared.json).toEqual({ fault: null });
    expect((await server.control('GET', '/state')).json).toMatchObject({ fault: null });
  });

  it.each([
    [[], 'Fault must be a JSON object like { "kind": "server-error" }'],
    [{}, `kind must be one of ${FAULT_KINDS.join(', ')}`],
    [{ kind: 'explode' }, `kind must be one of ${FAULT_KINDS.join(', ')}`],
    [{ kind: 'server-error', delaySeconds: 3 }, 'delaySeconds is not an option of the server-error fault (allowed: kind, durationSeconds)'],
    [{ kind: 'hang', durationSeconds: 0 }, 'durationSeconds must be a number of seconds above 0 and at most 86400'],
    [{ kind: 'hang', durationSeconds: '10' }, 'durationSeconds must be a number of seconds above 0 and at most 86400'],
    [{ kind: 'slow', delaySeconds: 301 }, 'delaySeconds must be a number of seconds above 0 and at most 300'],
    [{ kind: 'rate-limited', retryAfterSeconds: 1.5 }, 'retryAfterSeconds must be a whole number of seconds from 0 to 86400'],
    [{ kind: 'invalid-count', value: 12 }, 'value must not be a valid count (try -3, 1.5, "12" or null)'],
    [{ kind: 'wrong-website', value: 7 }, 'value must be a non-empty string: the websiteId to echo'],
    [{ kind: 'missing-field', field: 'plan' }, 'field must be one of currentVisitors, websiteId, timestamp'],
  ])('answers 400 to %o', async (body, message) => {
    const answer = await server.control('POST', '/fault', body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: message });
    expect(server.emulator.state().fault).toBeNull();
  });

  it('answers 400 to a body that is not JSON, and 415 to one that is not declared as JSON', async () => {
    const junk = await server.request('/__emulator/fault', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: 'kind=hang',
    });
    expect(junk.status).toBe(400);
    expect(junk.json).toEqual({ error: 'Request body must be valid JSON' });
    const form = await server.request('/__emulator/fault', { method: 'POST', body: JSON.stringify({ kind: 'hang' }) });
    expect(form.status).toBe(415);
    expect(form.json).toEqual({ error: 'Content-Type must be application/json' });
    expect(server.emulator.state().fault).toBeNull();
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const answer = await server.control('GET', '/fault');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST, DELETE');
  });
});

describe('/__emulator/traffic', () => {
  it('sets the target of every website and starts the simulator', async () => {
    const answer = await server.control('POST', '/traffic', { target: 25 });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ running: true, targets: { [DEMO.websiteId]: 25, [FREE.websiteId]: 25 } });
    server.time.advance(60_000);
    expect(server.emulator.currentVisitors(DEMO.websiteId)).toBeGreaterThan(15);
  });

  it('sets one website and jumps there at once when immediate', async () => {
    const answer = await server.control('POST', '/traffic', { target: 12, websiteId: FREE.websiteId, immediate: true });
    expect(answer.json).toEqual({ running: true, targets: { [DEMO.websiteId]: 0, [FREE.websiteId]: 12 } });
    const report = await server.realtime(`?websiteId=${FREE.websiteId}`, bearer(FREE.token));
    expect(report.json).toMatchObject({ currentVisitors: 12 });
  });

  it('stops the simulator on DELETE', async () => {
    await server.control('POST', '/traffic', { target: 5 });
    const answer = await server.control('DELETE', '/traffic');
    expect(answer.json).toMatchObject({ running: false });
    expect(server.emulator.traffic.isRunning).toBe(false);
  });

  it.each([
    [{}, 'target must be a whole number from 0 to 10000'],
    [{ target: -1 }, 'target must be a whole number from 0 to 10000'],
    [{ target: 2.5 }, 'target must be a whole number from 0 to 10000'],
    [{ target: 10_001 }, 'target must be a whole number from 0 to 10000'],
    [{ target: '5' }, 'target must be a whole number from 0 to 10000'],
    [{ target: 5, websiteId: 'no-such-shop' }, 'websiteId must be the id of a configured website'],
    [{ target: 5, immediate: 'yes' }, 'immediate must be true or false'],
    [{ target: 5, speed: 2 }, 'speed is not a traffic option (allowed: target, websiteId, immediate)'],
    ['5', 'Body must be a JSON object like { "target": 40 }'],
  ])('answers 400 to %o and changes nothing', async (body, message) => {
    const answer = await server.control('POST', '/traffic', body);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: message });
    expect(server.emulator.traffic.state).toEqual({ running: false, targets: { [DEMO.websiteId]: 0, [FREE.websiteId]: 0 } });
  });
});

describe('POST /__emulator/reset', () => {
  it('forgets pageviews and plan-limit counts and clears the fault', async () => {
    server.emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    await server.realtime(`?websiteId=${DEMO.websiteId}`, bearer(DEMO.token));
    await server.control('POST', '/fault', { kind: 'server-error' });
    const answer = await server.control('POST', '/reset', {});
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ fault: null, websites: [{ currentVisitors: 0 }, { currentVisitors: 0 }] });
    const report = await server.realtime(`?websiteId=${DEMO.websiteId}`, bearer(DEMO.token));
    expect(report.headers.get('x-ratelimit-remaining')).toBe('9999');
  });
});

describe('the control API against other web pages', () => {
  it('refuses a reset a plain HTML form could send (not JSON)', async () => {
    const answer = await server.request('/__emulator/reset', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', Origin: 'https://evil.example' },
      body: 'x',
    });
    expect(answer.status).toBe(415);
  });

  it('answers on localhost only, against DNS rebinding', async () => {
    const { request } = await import('node:http');
    const { port } = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const asked = request(
        { host: '127.0.0.1', port, path: '/__emulator/state', headers: { Host: `attacker.example:${port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      asked.on('error', reject);
      asked.end();
    });
    expect(status).toBe(403);
    expect((await server.control('GET', '/state')).status).toBe(200);
  });
});

describe('without the controls option', () => {
  it('serves no control path at all', async () => {
    const plain = await import('./support/test-server.js').then(({ startTestServer: start }) => start({ controls: false }));
    try {
      for (const path of ['/state', '/fault', '/traffic', '/reset']) {
        const answer = await plain.control('POST', path, {});
        expect(answer.status).toBe(404);
        expect(answer.json).toEqual({ error: 'Not found' });
      }
    } finally {
      await plain.close();
    }
  });
});
