/**
 * `value` when it is a finite number, else `fallback`: for attributes and stored records, either
 * of which may hold anything. `Number.isFinite` is false for anything but a number (null too),
 * unlike the global `isFinite`.
 */
export function finiteOr<T>(value: unknown, fallback: T): number | T {
  return Number.isFinite(value) ? (value as number) : fallback;
}
