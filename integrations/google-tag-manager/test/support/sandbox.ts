/**
 * Runs a template's sandboxed JavaScript against Tag Manager's documented API contract: the code
 * sees only `require` and `data`, `require(name)` hands out this runner's implementation of the
 * named API, and every API that needs a permission checks the template's declared ones first and
 * throws `PermissionDenied` when they do not allow the call, as Tag Manager does. What the APIs do
 * to a page goes through a `SandboxHost`: a model window in Node, the real one in Chromium.
 * No Node or DOM here, so the page runs this very module.
 */
import { type DeclaredPermissions, demand, isAllowed } from './permissions.js';

export interface SandboxHost {
  /** The page's global object as the APIs see it. */
  readonly window: Record<string, unknown>;
  /** Adds a classic script at `url`, as `injectScript` does, and calls back once, after it loads or fails. */
  addScript(url: string, onLoad: () => void, onError: () => void): void;
  /** Where `logToConsole` writes. */
  log(...values: unknown[]): void;
  /** Preview and debug mode, where a `logging` permission for `debug` writes. */
  readonly debugMode: boolean;
  /** Calls `code` as a function body whose only names are `bindings`' keys. */
  evaluate(code: string, bindings: Readonly<Record<string, unknown>>): void;
}

export interface ApiCall {
  readonly api: string;
  readonly args: readonly unknown[];
}

export interface RunOptions {
  readonly code: string;
  /** The template's fields as Tag Manager passes them; `gtmOnSuccess` and `gtmOnFailure` are added. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly permissions: DeclaredPermissions;
  readonly host: SandboxHost;
  /** APIs replaced by a test's `mock()`: Tag Manager checks no permission for them. */
  readonly mocks?: ReadonlyMap<string, (...args: unknown[]) => unknown>;
  /** Shared by the tags of one page, as Tag Manager's `injectScript` cache is. */
  readonly scriptCache?: ScriptCache;
}

export type Outcome = 'success' | 'failure';

export interface TagRun {
  /** Every API call and every `gtmOnSuccess`/`gtmOnFailure` call, in order. */
  readonly calls: readonly ApiCall[];
  /** What the code threw synchronously (a denied permission, a bug), if anything. */
  readonly thrown: unknown;
  /** The first of `gtmOnSuccess` or `gtmOnFailure` called, whenever that happens. */
  readonly outcome: Promise<Outcome>;
}

/** Scripts already requested by `injectScript`, by cache token. */
export type ScriptCache = Map<
  string,
  { state: 'loading' | 'loaded' | 'failed'; waiting: Array<{ onLoad: () => void; onError: () => void }> }
>;

/**
 * Names JavaScript offers but sandboxed JavaScript does not (it reaches `JSON`, `Math` and the
 * like through `require`): shadowed, so a template that uses one fails here as it would there.
 */
const UNAVAILABLE_GLOBALS = [
  'globalThis',
  'window',
  'document',
  'self',
  'navigator',
  'location',
  'console',
  'fetch',
  'setTimeout',
  'setInterval',
  'JSON',
  'Math',
  'Date',
  'Object',
  'Array',
  'String',
  'Number',
  'Boolean',
  'RegExp',
  'Promise',
  'Reflect',
  'Proxy',
  'Symbol',
  'Function',
  'Error',
  'Map',
  'Set',
  'parseInt',
  'parseFloat',
  'encodeURIComponent',
  'decodeURIComponent',
  'escape',
  'unescape',
  'Intl',
];

export function runTemplate(options: RunOptions): TagRun {
  const { permissions, host } = options;
  const calls: ApiCall[] = [];
  const cache = options.scriptCache ?? new Map();
  let settle: (outcome: Outcome) => void = () => {};
  const outcome = new Promise<Outcome>((resolve) => {
    settle = resolve;
  });
  const recorded =
    (api: string, implementation: (...args: never[]) => unknown) =>
    (...args: unknown[]) => {
      calls.push({ api, args });
      return (options.mocks?.get(api) ?? implementation)(...(args as never[]));
    };

  const apis: Record<string, (...args: never[]) => unknown> = {
    createQueue(name: string) {
      demand(permissions, 'access_globals', 'readwrite', name);
      const existing = readPath(host.window, name);
      if (existing !== undefined && !Array.isArray(existing)) throw new TypeError(`createQueue: window.${name} is not an array`);
      const queue = (existing ?? []) as unknown[];
      if (existing === undefined) writePath(host.window, name, queue);
      // The array's current push, looked up at each call: the loader may replace it, as GTM replaces dataLayer's.
      return (...values: unknown[]) => queue.push(...values);
    },
    injectScript(url: string, onSuccess: () => void, onFailure: () => void, cacheToken?: string) {
      demand(permissions, 'inject_script', url);
      const callbacks = { onLoad: () => onSuccess?.(), onError: () => onFailure?.() };
      const cached = cacheToken === undefined ? undefined : cache.get(cacheToken);
      if (cached?.state === 'loaded') return void queueMicrotask(callbacks.onLoad);
      if (cached?.state === 'failed') return void queueMicrotask(callbacks.onError);
      if (cached) return void cached.waiting.push(callbacks);
      const entry = { state: 'loading' as 'loading' | 'loaded' | 'failed', waiting: [callbacks] };
      if (cacheToken !== undefined) cache.set(cacheToken, entry);
      const finish = (state: 'loaded' | 'failed') => {
        entry.state = state;
        for (const waiting of entry.waiting.splice(0)) (state === 'loaded' ? waiting.onLoad : waiting.onError)();
      };
      host.addScript(
        url,
        () => finish('loaded'),
        () => finish('failed'),
      );
    },
    setInWindow(key: string, value: unknown, overrideExisting = false) {
      demand(permissions, 'access_globals', 'write', key);
      if (!overrideExisting && readPath(host.window, key) !== undefined) return false;
      writePath(host.window, key, value);
      return true;
    },
    copyFromWindow(key: string) {
      demand(permissions, 'access_globals', 'read', key);
      return readPath(host.window, key);
    },
    callInWindow(path: string, ...args: unknown[]) {
      demand(permissions, 'access_globals', 'execute', path);
      const parts = path.split('.');
      const owner = parts.length > 1 ? readPath(host.window, parts.slice(0, -1).join('.')) : host.window;
      const method = readPath(host.window, path);
      if (typeof method !== 'function') return undefined;
      return method.apply(owner, args);
    },
    logToConsole(...values: unknown[]) {
      demand(permissions, 'logging');
      if (permissions.logging === 'all' || host.debugMode) host.log(...values);
    },
    queryPermission: (kind: string, ...args: unknown[]) => isAllowed(permissions, kind, args),
    makeString: (value: unknown) => String(value),
    makeNumber: (value: unknown) => Number(value),
    encodeUriComponent: (value: unknown) => (typeof value === 'string' ? encodeURIComponent(value) : undefined),
    getType: (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value),
  };

  const require = (name: string) => {
    const implementation = apis[name];
    if (!implementation && !options.mocks?.has(name)) throw new Error(`require('${name}'): not an API this runner implements`);
    return recorded(name, implementation ?? (() => undefined));
  };
  let settled = false;
  const ending = (api: 'gtmOnSuccess' | 'gtmOnFailure', result: Outcome) => () => {
    calls.push({ api, args: [] });
    if (!settled) settle(result);
    settled = true;
  };
  const data = { ...options.fields, gtmOnSuccess: ending('gtmOnSuccess', 'success'), gtmOnFailure: ending('gtmOnFailure', 'failure') };
  const bindings: Record<string, unknown> = Object.fromEntries(UNAVAILABLE_GLOBALS.map((name) => [name, undefined]));
  let thrown: unknown;
  try {
    host.evaluate(options.code, { ...bindings, require, data });
  } catch (error) {
    thrown = error;
  }
  return { calls, thrown, outcome };
}

function readPath(root: Record<string, unknown>, path: string): unknown {
  let value: unknown = root;
  for (const part of path.split('.')) {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function writePath(root: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let owner = root;
  for (const part of parts.slice(0, -1)) {
    owner[part] ??= {};
    owner = owner[part] as Record<string, unknown>;
  }
  owner[parts.at(-1) as string] = value;
}
