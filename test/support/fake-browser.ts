import { vi } from 'vitest';
import { browserEnvironment, type Environment } from '../../src/realtime/environment.js';
import type { FakeService } from './fake-service.js';

/** localStorage shared by the tabs of one fake browser; a write fires `storage` in the other tabs. */
class SharedStorage implements Storage {
  readonly #items = new Map<string, string>();
  readonly #onWrite: (key: string | null, writer: FakeTab | null) => void;
  writer: FakeTab | null = null;

  constructor(onWrite: (key: string | null, writer: FakeTab | null) => void) {
    this.#onWrite = onWrite;
  }
  get length() {
    return this.#items.size;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.#items.set(key, String(value));
    this.#onWrite(key, this.writer);
  }
  removeItem(key: string) {
    this.#items.delete(key);
    this.#onWrite(key, this.writer);
  }
  clear() {
    this.#items.clear();
    this.#onWrite(null, this.writer);
  }
  entries(): Array<[string, string]> {
    return [...this.#items];
  }
}

/** Web Locks as far as we use them: one holder per name, and `ifAvailable` answering null when held. */
class FakeLocks {
  readonly #held = new Set<string>();

  async request<T>(name: string, options: { ifAvailable?: boolean }, task: (lock: { name: string } | null) => Promise<T>): Promise<T> {
    if (!options.ifAvailable) throw new TypeError('this fake only grants locks with ifAvailable');
    if (this.#held.has(name)) return task(null);
    this.#held.add(name);
    try {
      return await task({ name });
    } finally {
      this.#held.delete(name);
    }
  }
}

type Listener = (...args: never[]) => void;

/** One `onHalfVisible` subscription: what it watches, and the last state it was told. */
interface HalfVisibleObserver {
  element: Element;
  listener: (halfVisible: boolean) => void;
  told: boolean | null;
}

/** One tab: its own visibility, connectivity and listeners, sharing the browser's storage, locks and network. */
export class FakeTab {
  visible = true;
  readonly listeners = { visibility: new Set<Listener>(), connectivity: new Set<Listener>(), storage: new Set<Listener>() };
  readonly warnings: string[] = [];
  readonly env: Environment;
  readonly #halfVisibleObservers = new Set<HalfVisibleObserver>();
  /** What `setHalfVisible` said per element; elements it did not name follow `#everythingHalfVisible`. */
  readonly #halfVisible = new Map<Element, boolean>();
  #everythingHalfVisible = false;

  constructor(browser: FakeBrowser, overrides: Partial<Environment>) {
    const listen =
      <T extends Listener>(set: Set<Listener>) =>
      (listener: T) => {
        set.add(listener);
        return () => set.delete(listener);
      };
    const storage = browser.storage;
    this.env = {
      ...browserEnvironment,
      fetch: (input, init) => browser.service.fetch(input, init),
      isVisible: () => this.visible,
      onVisibilityChange: listen(this.listeners.visibility),
      onConnectivityChange: listen(this.listeners.connectivity),
      onStorage: listen(this.listeners.storage),
      storage: () => {
        storage.writer = this;
        return storage;
      },
      locks: () => browser.locks as unknown as LockManager,
      onHalfVisible: (element, listener) => this.#observeHalfVisible(element, listener),
      warn: (message) => this.warnings.push(message),
      ...overrides,
    };
  }

  setVisible(visible: boolean): void {
    this.visible = visible;
    for (const listener of this.listeners.visibility) (listener as () => void)();
  }

  setOnline(online: boolean): void {
    for (const listener of this.listeners.connectivity) (listener as (online: boolean) => void)(online);
  }

  listenerCount(): number {
    return this.listeners.visibility.size + this.listeners.connectivity.size + this.listeners.storage.size;
  }

  /**
   * Scrolls `element` (or every element, also those observed later) at least half into view, or
   * out of it. Nothing is half visible until a test says so.
   */
  setHalfVisible(target: Element | 'all', halfVisible: boolean): void {
    if (target === 'all') {
      this.#halfVisible.clear();
      this.#everythingHalfVisible = halfVisible;
    } else this.#halfVisible.set(target, halfVisible);
    for (const observer of this.#halfVisibleObservers) this.#tell(observer);
  }

  /** Subscriptions of `onHalfVisible` not yet ended: a leak shows here. */
  halfVisibleObserverCount(): number {
    return this.#halfVisibleObservers.size;
  }

  // Like an IntersectionObserver: a first callback after `observe()` (never within it), then one
  // per crossing of the threshold, none once disconnected.
  #observeHalfVisible(element: Element, listener: (halfVisible: boolean) => void): () => void {
    const observer: HalfVisibleObserver = { element, listener, told: null };
    this.#halfVisibleObservers.add(observer);
    queueMicrotask(() => this.#tell(observer));
    return () => this.#halfVisibleObservers.delete(observer);
  }

  #tell(observer: HalfVisibleObserver): void {
    const halfVisible = this.#halfVisible.get(observer.element) ?? this.#everythingHalfVisible;
    if (!this.#halfVisibleObservers.has(observer) || observer.told === halfVisible) return;
    observer.told = halfVisible;
    observer.listener(halfVisible);
  }
}

/** Tabs of one browser profile, talking to one fake service. */
export class FakeBrowser {
  readonly tabs: FakeTab[] = [];
  readonly storage = new SharedStorage((key, writer) => {
    for (const tab of this.tabs) {
      if (tab === writer) continue;
      for (const listener of tab.listeners.storage) (listener as (key: string | null) => void)(key);
    }
  });
  readonly locks = new FakeLocks();
  readonly service: FakeService;

  constructor(service: FakeService) {
    this.service = service;
  }

  openTab(overrides: Partial<Environment> = {}): FakeTab {
    const tab = new FakeTab(this, overrides);
    this.tabs.push(tab);
    return tab;
  }

  /** Everything in storage, for "the token is never persisted" checks. */
  storedText(): string {
    return this.storage.entries().flat().join('\n');
  }
}

let keyCounter = 0;
/** A website id no other test has used, so no feed or stored record leaks between tests. */
export function freshWebsiteId(prefix = 'site'): string {
  keyCounter += 1;
  return `${prefix}-${keyCounter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Fake timers and clock, starting at a fixed, known instant. */
export function useFakeClock(start = Date.UTC(2026, 10, 22, 9, 0, 0)): void {
  vi.useFakeTimers({ now: start, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
}
