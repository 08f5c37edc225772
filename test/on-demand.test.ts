import { describe, expect, it, vi } from 'vitest';
import { onDemand } from '../src/on-demand.js';

// The lazy files' loader (src/on-demand.ts): the disclosure's and the experiments' files load once
// a page, the element that asked updates when its file is in, and a file that cannot be had stays out.

/** A module load the test settles by hand, counting how often it was started. */
function deferredLoad<T>() {
  let settle!: { resolve: (module: T) => void; reject: (error: unknown) => void };
  const load = vi.fn(
    () =>
      new Promise<T>((resolve, reject) => {
        settle = { resolve, reject };
      }),
  );
  return { load, settle: () => settle };
}

const host = () => ({ requestUpdate: vi.fn() });

describe('onDemand', () => {
  it('is undefined until the file is in, loads it once for every element that asks, then updates each of them', async () => {
    const { load, settle } = deferredLoad<{ name: string }>();
    const file = onDemand(load);
    const [first, second] = [host(), host()];
    expect(file.get(first)).toBeUndefined();
    expect(file.get(second)).toBeUndefined();
    expect(file.get(first)).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(1);
    expect(first.requestUpdate).not.toHaveBeenCalled();
    const module = { name: 'disclosure' };
    settle().resolve(module);
    await expect(file.loaded()).resolves.toBe(module);
    expect(first.requestUpdate).toHaveBeenCalled();
    expect(second.requestUpdate).toHaveBeenCalled();
    // In hand from now on: no load, no update asked.
    const third = host();
    expect(file.get(third)).toBe(module);
    expect(third.requestUpdate).not.toHaveBeenCalled();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('a file that cannot be had stays out: get stays undefined, nothing throws unhandled, loaded() rejects', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const { load, settle } = deferredLoad<object>();
      const file = onDemand(load);
      const element = host();
      expect(file.get(element)).toBeUndefined();
      settle().reject(new TypeError('Failed to fetch dynamically imported module'));
      await expect(file.loaded()).rejects.toThrow('Failed to fetch');
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(file.get(element)).toBeUndefined();
      expect(element.requestUpdate).not.toHaveBeenCalled();
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
