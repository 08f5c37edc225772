import type { RelayMetrics } from './relay-metrics.js';

/**
 * The store as the relay uses it, each method's round trip timed into `metrics` under `store` and
 * the method's name: one wrapper for every back end and both seams (`RelayStore`,
 * `RegistrationStore`), so no back end carries the metrics. A method that does not return a promise
 * is passed through untimed. Methods run on the store itself, so its private fields keep working.
 */
export function timedStore<T extends object>(store: T, name: string, metrics: Pick<RelayMetrics, 'storeRoundTrip'>): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let timed = wrapped.get(property);
      if (timed === undefined) {
        timed = (...args: unknown[]) => {
          const started = performance.now();
          const result: unknown = value.apply(target, args);
          if (!(result instanceof Promise)) return result;
          const observe = (failed: boolean) => metrics.storeRoundTrip(name, property, (performance.now() - started) / 1000, failed);
          return result.then(
            (answer: unknown) => {
              observe(false);
              return answer;
            },
            (error: unknown) => {
              observe(true);
              throw error;
            },
          );
        };
        wrapped.set(property, timed);
      }
      return timed;
    },
  });
}
