// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';
import { createEmulator } from '../src/emulator.js';
import { FakeTime } from './support/fake-time.js';
import { bearer, DEMO, toAnswer } from './support/test-server.js';

const realtimeRequest = () =>
  new Request(`http://localhost:5173/api/v1/realtime?websiteId=${DEMO.websiteId}`, { headers: bearer(DEMO.token) });

describe('the Fetch API handler, as mounted in a dev server', () => {
  it('answers plain Request objects, whatever the host', async () => {
    const time = new FakeTime();
    const emulator = createEmulator({ now: time.now, timers: time });
    emulator.recordPageview(DEMO.websiteId, 'visitor-a');
    const answer = await toAnswer(await emulator.handler(realtimeRequest()));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ currentVisitors: 1, websiteId: DEMO.websiteId, timestamp: new Date(time.now()).toISOString() });
  });

  it('never throws: an unexpected error becomes a 500 JSON answer and is reported', async () => {
    const onError = vi.fn();
    let broken = false;
    const emulator = createEmulator({
      now: () => {
        if (broken) throw new Error('clock broke');
        return Date.UTC(2025, 0, 1);
      },
      onError,
    });
    broken = true;
    const answer = await toAnswer(await emulator.handler(realtimeRequest()));
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ error: 'Internal server error' });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'clock broke' }));
  });

  it('reports to console.error when no onError is given', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const emulator = createEmulator({
      now: () => {
        throw new Error('clock broke');
      },
    });
    expect((await emulator.handler(realtimeRequest())).status).toBe(500);
    expect(consoleError).toHaveBeenCalledWith('[emulator]', expect.any(Error));
  });
});
