import { type After, systemAfter } from '../contract/timers.js';

/**
 * Everything the data layer needs from the outside world, behind one replaceable seam, so
 * tests can use fakes and a server-side import never touches `window`.
 *
 * The defaults look the globals up at call time (not at import time), so test doubles installed
 * later (fake timers, a stubbed `fetch`) are honoured.
 */
export interface Environment extends After {
  fetch(input: string, init: RequestInit): Promise<Response>;
  /** Milliseconds since the epoch by the device clock. */
  now(): number;
  /** A number in [0, 1), for jitter. */
  random(): number;
  /** The page is shown to the user (a hidden tab sends no request). */
  isVisible(): boolean;
  /** Calls back when the page is shown or hidden; returns the unsubscribe function. */
  onVisibilityChange(listener: () => void): () => void;
  /**
   * Calls back on the browser's `online` / `offline` events; returns the unsubscribe function.
   * There is deliberately no "is online" query: `navigator.onLine` is unreliable at start, so the
   * feed assumes online until told otherwise.
   */
  onConnectivityChange(listener: (online: boolean) => void): () => void;
  /** Calls back when another tab writes `localStorage`; returns the unsubscribe function. */
  onStorage(listener: (key: string | null) => void): () => void;
  /**
   * Persistent storage shared by the tabs of one origin, if any. Throws where the browser refuses
   * it: read it through `withStorage`, which catches that.
   */
  storage(): Storage | undefined;
  /** The Web Locks API, when the browser has it. */
  locks(): LockManager | undefined;
  /**
   * Calls back whenever `element` becomes at least half visible in the viewport or stops being so
   * (never where the browser has no IntersectionObserver); returns the unsubscribe function.
   * Unset, the browser's own (`observeHalfVisible`, src/half-visible.ts) is used: it loads with
   * impressions, its only user, instead of with every page.
   */
  onHalfVisible?(element: Element, listener: (halfVisible: boolean) => void): () => void;
  /** A warning for the page's developer; the browser's names the element first, so no caller has to. */
  warn(message: string): void;
}

/**
 * Listens to `types` on `target`; returns the function that stops. `globalThis.document` and
 * `globalThis.window` are undefined on a server (where a bare `document` would throw): nothing then.
 */
export function listen(target: EventTarget | undefined, types: string[], listener: EventListener): () => void {
  if (!target) return () => {};
  for (const type of types) target.addEventListener(type, listener);
  return () => {
    for (const type of types) target.removeEventListener(type, listener);
  };
}

export const browserEnvironment: Environment = {
  fetch: (input, init) => fetch(input, init),
  now: () => Date.now(),
  random: () => Math.random(),
  after: systemAfter,
  isVisible: () => globalThis.document?.visibilityState !== 'hidden',
  onVisibilityChange: (listener) => listen(globalThis.document, ['visibilitychange'], listener),
  onConnectivityChange: (listener) => listen(globalThis.window, ['online', 'offline'], (event) => listener(event.type === 'online')),
  onStorage: (listener) => listen(globalThis.window, ['storage'], (event) => listener((event as StorageEvent).key)),
  // Reading the property itself throws where storage is blocked (sandboxed frames, some privacy
  // modes): `withStorage` catches it with the other refusals, so there is no second try here.
  storage: () => globalThis.window?.localStorage,
  locks: () => globalThis.navigator?.locks,
  warn: (message) => console.warn(`<live-visitors> ${message}`),
};

/**
 * `use` of the shared storage, or undefined where there is none or the browser refuses it
 * (sandboxed frames, privacy modes, a full quota): every caller then works from this page's memory.
 */
export function withStorage<T>(env: Environment, use: (storage: Storage) => T): T | undefined {
  try {
    const storage = env.storage();
    return storage && use(storage);
  } catch {
    return undefined;
  }
}

let current: Environment = browserEnvironment;

/** The environment new feeds are created with. */
export function environment(): Environment {
  return current;
}

/**
 * Replaces parts of the environment (for tests and unusual hosts); returns a function that
 * restores the previous one.
 */
export function setEnvironment(overrides: Partial<Environment>): () => void {
  const previous = current;
  current = { ...previous, ...overrides };
  return () => {
    current = previous;
  };
}
