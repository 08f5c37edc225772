import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemTimers } from '../src/contract/timers.js';
import { browserEnvironment as env, environment, setEnvironment, withStorage } from '../src/realtime/environment.js';

describe('the browser environment', () => {
  it('reports visibility changes until unsubscribed', () => {
    const listener = vi.fn();
    const stop = env.onVisibilityChange(listener);
    document.dispatchEvent(new Event('visibilitychange'));
    stop();
    document.dispatchEvent(new Event('visibilitychange'));
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['visible', true],
    ['hidden', false],
  ])('reads a %s page as visible: %s', (state, visible) => {
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue(state as DocumentVisibilityState);
    expect(env.isVisible()).toBe(visible);
  });

  it('reports going offline and online until unsubscribed', () => {
    const seen: boolean[] = [];
    const stop = env.onConnectivityChange((online) => seen.push(online));
    window.dispatchEvent(new Event('offline'));
    window.dispatchEvent(new Event('online'));
    stop();
    window.dispatchEvent(new Event('offline'));
    expect(seen).toEqual([false, true]);
  });

  it('reports which storage key another tab changed', () => {
    const keys: Array<string | null> = [];
    const stop = env.onStorage((key) => keys.push(key));
    window.dispatchEvent(new StorageEvent('storage', { key: 'live-visitors:x' }));
    window.dispatchEvent(new StorageEvent('storage', { key: null }));
    stop();
    window.dispatchEvent(new StorageEvent('storage', { key: 'after' }));
    expect(keys).toEqual(['live-visitors:x', null]);
  });

  it('gives no storage where reading localStorage throws (blocked by the browser)', () => {
    expect(withStorage(env, (storage) => storage)).toBe(window.localStorage);
    vi.spyOn(window, 'localStorage', 'get').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    expect(withStorage(env, (storage) => storage)).toBeUndefined();
  });

  it('looks globals up when called, so fakes installed later are used', async () => {
    const fetch = vi.fn(async () => new Response('{}'));
    vi.stubGlobal('fetch', fetch);
    await env.fetch('https://a.example/x', {});
    expect(fetch).toHaveBeenCalledWith('https://a.example/x', {});
    vi.useFakeTimers({ now: 1234 });
    const callback = vi.fn();
    const cancel = env.after(10, callback);
    cancel();
    vi.advanceTimersByTime(20);
    expect(callback).not.toHaveBeenCalled();
    expect(env.now()).toBe(1234 + 20);
    vi.useRealTimers();
  });

  it('can be replaced in part, and restored', () => {
    const warn = vi.fn();
    const restore = setEnvironment({ warn });
    environment().warn('hello');
    restore();
    expect(warn).toHaveBeenCalledWith('hello');
    expect(environment()).toBe(env);
  });
});

// The browser's after() and the servers' (systemTimers, on Node, Deno, Bun, workerd) must both hold this: Workers and
// browsers hand out numbers as handles, which the platform may reuse once a timer has run.
describe.each([
  ["the browser environment's after()", env],
  ["the servers' systemTimers.after()", systemTimers],
])("%s: a timer with a cancel function (the contract's After)", (_, timers) => {
  /**
   * Timers whose handles are reused as soon as a timer has run, as the HTML spec allows (it
   * promises only an id not among the active timers): the smallest free number.
   */
  function reusingTimers() {
    const active = new Map<number, () => void>();
    vi.stubGlobal('setTimeout', (callback: () => void) => {
      let handle = 1;
      while (active.has(handle)) handle += 1;
      active.set(handle, callback);
      return handle;
    });
    vi.stubGlobal('clearTimeout', (handle: number) => void active.delete(handle));
    const run = (handle: number) => {
      const callback = active.get(handle);
      active.delete(handle);
      callback?.();
    };
    return { run, active };
  }

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('a cancel after the timer ran leaves a later timer with the same handle running', () => {
    const { run, active } = reusingTimers();
    const fired: string[] = [];
    const cancelFirst = timers.after(10, () => fired.push('first'));
    run(1);
    timers.after(10, () => fired.push('second'));
    expect([...active.keys()]).toEqual([1]);
    cancelFirst();
    run(1);
    expect(fired).toEqual(['first', 'second']);
  });

  it('a cancel before the timer ran stops it, and a second cancel does nothing', () => {
    const { run, active } = reusingTimers();
    const fired: string[] = [];
    const cancel = timers.after(10, () => fired.push('first'));
    cancel();
    timers.after(10, () => fired.push('second'));
    cancel();
    run(1);
    expect(fired).toEqual(['second']);
    expect(active.size).toBe(0);
  });
});
