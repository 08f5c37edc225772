/** An element that waits for a lazy file: it updates once the file is in. */
interface Waiting {
  requestUpdate(): void;
}

/** A lazy file's module: `get` it when an element needs it, or wait until it is `loaded`. */
export interface OnDemand<T> {
  /** The module when it is in; else undefined, and `host` updates once it is in. */
  get(host: Waiting): T | undefined;
  /** Resolves with the module once it is in (rejects when its file cannot be had). */
  loaded(): Promise<T>;
}

/**
 * A file of the element's own, loaded the first time a page needs it (`load` is its literal
 * `import()`, so every bundler splits it off), as the language files are: every shop pays for the
 * sentence, and code that only some pages or only later moments need waits for them. A file that
 * fails to load stays out; the element goes on without it.
 */
export function onDemand<T>(load: () => Promise<T>): OnDemand<T> {
  let module: T | undefined;
  let loading: Promise<T> | undefined;
  const loaded = () =>
    (loading ??= load().then((loadedModule) => {
      module = loadedModule;
      return loadedModule;
    }));
  return {
    get(host) {
      if (!module)
        loaded().then(
          () => host.requestUpdate(),
          () => {},
        );
      return module;
    },
    loaded,
  };
}
