// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { FakeTime } from '../../emulator/test/support/fake-time.js';
import { DeadlineExceeded, withDeadline } from '../../server-kit/deadline.js';

/**
 * server-kit's one deadline, which bounds the relay's upstream request, Redis commands and Durable
 * Object calls: on the timers it is given, so a test moves it instead of waiting for it.
 */
describe('withDeadline', () => {
  it('settles as the work does when it is in time, its signal never aborts, and its timer is cancelled', async () => {
    const time = new FakeTime();
    let seen: AbortSignal | undefined;
    await expect(
      withDeadline(time, 1_000, 'late', async (signal) => {
        seen = signal;
        return 'done';
      }),
    ).resolves.toBe('done');
    await expect(withDeadline(time, 1_000, 'late', async () => Promise.reject(new Error('broke')))).rejects.toThrow('broke');
    expect(seen?.aborted).toBe(false);
    expect(time.pendingTimers).toBe(0);
  });

  it('rejects with DeadlineExceeded naming what was late, exactly when the given timers reach the deadline', async () => {
    const time = new FakeTime();
    let seen: AbortSignal | undefined;
    let settled = false;
    const outcome = withDeadline(time, 20, 'no answer within 20 ms', (signal) => {
      seen = signal;
      return new Promise<never>(() => {});
    });
    outcome
      .catch(() => {})
      .finally(() => {
        settled = true;
      });
    time.advance(19);
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(seen?.aborted).toBe(false);
    time.advance(1);
    await expect(outcome).rejects.toEqual(new DeadlineExceeded('no answer within 20 ms'));
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBeInstanceOf(DeadlineExceeded);
  });

  it('reports work that fails on its aborted signal as the deadline, not as that failure', async () => {
    const time = new FakeTime();
    const outcome = withDeadline(
      time,
      20,
      'timeout',
      (signal) =>
        new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    );
    time.advance(20);
    await expect(outcome).rejects.toBeInstanceOf(DeadlineExceeded);
  });
});
