// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { DeadlineExceeded, withDeadline } from '../../server-kit/deadline.js';

/** server-kit's one deadline, which bounds the relay's upstream request, Redis commands and Durable Object calls. */
describe('withDeadline', () => {
  it('settles as the work does when it is in time, and its signal never aborts', async () => {
    let seen: AbortSignal | undefined;
    await expect(
      withDeadline(1_000, 'late', async (signal) => {
        seen = signal;
        return 'done';
      }),
    ).resolves.toBe('done');
    await expect(withDeadline(1_000, 'late', async () => Promise.reject(new Error('broke')))).rejects.toThrow('broke');
    expect(seen?.aborted).toBe(false);
  });

  it('rejects with DeadlineExceeded naming what was late when the work ignores its signal', async () => {
    let seen: AbortSignal | undefined;
    const outcome = withDeadline(20, 'no answer within 20 ms', (signal) => {
      seen = signal;
      return new Promise<never>(() => {});
    });
    await expect(outcome).rejects.toEqual(new DeadlineExceeded('no answer within 20 ms'));
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBeInstanceOf(DeadlineExceeded);
  });

  it('reports work that fails on its aborted signal as the deadline, not as that failure', async () => {
    const outcome = withDeadline(
      20,
      'timeout',
      (signal) =>
        new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    );
    await expect(outcome).rejects.toBeInstanceOf(DeadlineExceeded);
  });
});
