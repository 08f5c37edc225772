/**
 * Loaded with `--import` into a relay process, moves its clocks by `RELAY_TEST_CLOCK_SKEW_MS`: both
 * the monotonic one the relay uses (`performance.timeOrigin + performance.now()`) and `Date.now()`,
 * as on a machine whose system clock is wrong. For the skewed-clock fleet tests only.
 */
const skewMs = Number(process.env.RELAY_TEST_CLOCK_SKEW_MS ?? '0');
if (Number.isFinite(skewMs) && skewMs !== 0) {
  const origin = performance.timeOrigin + skewMs;
  Object.defineProperty(performance, 'timeOrigin', { value: origin, configurable: true });
  const systemNow = Date.now.bind(Date);
  Date.now = () => systemNow() + skewMs;
}
