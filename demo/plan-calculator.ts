import { DEFAULT_INTERVAL_SECONDS, MIN_INTERVAL_SECONDS } from '../src/config.js';

/**
 * The product page's plan calculator: how many requests an hour a shop spends with every
 * shopper's browser calling the service, and through the relay, against the plan's hourly limit.
 * Pure arithmetic first, then the words, then the wiring to the form in demo/index.html.
 */

/** Requests per hour and per token of each plan (docs/realtime-api.md#plan-limits). */
export const PLANS = {
  free: { name: 'Free', hourlyLimit: 100 },
  pro: { name: 'Pro', hourlyLimit: 1_000 },
  enterprise: { name: 'Enterprise', hourlyLimit: 10_000 },
} as const;
export type PlanId = keyof typeof PLANS;

const SECONDS_PER_HOUR = 3600;

/** One browser (all its tabs and widgets share one request) polls once per interval. */
export function requestsPerBrowserPerHour(intervalSeconds: number): number {
  return Math.ceil(SECONDS_PER_HOUR / intervalSeconds);
}

/** Every shopper's browser calls the service with the shop's token. */
export function directRequestsPerHour(shoppers: number, intervalSeconds: number): number {
  return shoppers * requestsPerBrowserPerHour(intervalSeconds);
}

/**
 * The relay sends one upstream request per interval for the whole shop, however many shoppers
 * ask; a fleet of relays sharing a store (Redis, a Durable Object) sends the same.
 */
export function relayRequestsPerHour(intervalSeconds: number): number {
  return requestsPerBrowserPerHour(intervalSeconds);
}

/** The most shoppers at once the plan covers with direct calls; 0 when one browser is already over. */
export function shoppersCoveredDirectly(hourlyLimit: number, intervalSeconds: number): number {
  return Math.floor(hourlyLimit / requestsPerBrowserPerHour(intervalSeconds));
}

/** The shortest whole-second interval the element accepts at which one poller stays within the limit. */
export function shortestIntervalWithin(hourlyLimit: number): number {
  return Math.max(MIN_INTERVAL_SECONDS, Math.ceil(SECONDS_PER_HOUR / hourlyLimit));
}

/** The interval the element will use for a typed value, and why it differs when it does. */
export interface IntervalReading {
  seconds: number;
  adjustment: 'none' | 'raised' | 'default';
}

/** The element's own rule: empty or non-numeric means the default, under the minimum is raised to it. */
export function readInterval(typed: string): IntervalReading {
  const value = typed.trim() === '' ? Number.NaN : Number(typed);
  if (!Number.isFinite(value)) return { seconds: DEFAULT_INTERVAL_SECONDS, adjustment: 'default' };
  if (value < MIN_INTERVAL_SECONDS) return { seconds: MIN_INTERVAL_SECONDS, adjustment: 'raised' };
  return { seconds: value, adjustment: 'none' };
}

/** Shoppers as a whole number, never negative; an empty field counts as none. */
export function readShoppers(typed: string): number {
  const value = Math.floor(Number(typed));
  return Number.isFinite(value) && value > 0 ? value : 0;
}

export interface PlanEstimate {
  plan: PlanId;
  shoppers: number;
  intervalSeconds: number;
  hourlyLimit: number;
  direct: number;
  relay: number;
  coveredDirectly: number;
  /** Set when the relay is over the plan at this interval: the shortest interval that fits. */
  relayFitsFrom: number | null;
}

export function estimatePlan(plan: PlanId, shoppers: number, intervalSeconds: number): PlanEstimate {
  const { hourlyLimit } = PLANS[plan];
  const relay = relayRequestsPerHour(intervalSeconds);
  return {
    plan,
    shoppers,
    intervalSeconds,
    hourlyLimit,
    direct: directRequestsPerHour(shoppers, intervalSeconds),
    relay,
    coveredDirectly: shoppersCoveredDirectly(hourlyLimit, intervalSeconds),
    relayFitsFrom: relay > hourlyLimit ? shortestIntervalWithin(hourlyLimit) : null,
  };
}

const number = new Intl.NumberFormat('en');
const count = (value: number) => number.format(value);
const seconds = (value: number) => `${count(value)} s`;
const shoppersText = (value: number) => `${count(value)} ${value === 1 ? 'shopper' : 'shoppers'}`;

/** "300 an hour (5 × 60): over the Free plan's 100." */
export function describeDirect(estimate: PlanEstimate): string {
  const { direct, shoppers, intervalSeconds, hourlyLimit, plan } = estimate;
  const sum = `${count(shoppers)} × ${count(requestsPerBrowserPerHour(intervalSeconds))}`;
  return `${count(direct)} an hour (${sum}): ${limitWords(direct, hourlyLimit)} the ${PLANS[plan].name} plan’s ${count(hourlyLimit)}.`;
}

/** "60 an hour, whatever the number of shoppers: within the Free plan's 100." */
export function describeRelay(estimate: PlanEstimate): string {
  const { relay, hourlyLimit, plan } = estimate;
  return `${count(relay)} an hour, whatever the number of shoppers: ${limitWords(relay, hourlyLimit)} the ${PLANS[plan].name} plan’s ${count(hourlyLimit)}.`;
}

function limitWords(requests: number, limit: number): string {
  return requests > limit ? 'over' : 'within';
}

/** The answer to "does my plan cover my shop?", in one or two plain sentences. */
export function describeVerdict(estimate: PlanEstimate): string {
  const { plan, shoppers, intervalSeconds, coveredDirectly, relay, hourlyLimit, relayFitsFrom } = estimate;
  const name = PLANS[plan].name;
  const direct =
    coveredDirectly === 0
      ? `Your ${name} plan does not cover even 1 shopper at once without a relay: one browser sends ${count(requestsPerBrowserPerHour(intervalSeconds))} requests an hour at ${seconds(intervalSeconds)}`
      : `Your ${name} plan covers ${shoppersText(coveredDirectly)} at once without a relay` +
        (shoppers > coveredDirectly ? `, so ${shoppersText(shoppers)} need the relay` : `, so ${shoppersText(shoppers)} fit`);
  const relayed =
    relayFitsFrom === null
      ? `with the relay it covers any number (${count(relay)} requests an hour).`
      : `with the relay it needs ${count(relay)} requests an hour at ${seconds(intervalSeconds)}, over the plan’s ${count(hourlyLimit)}: ` +
        `an interval of ${seconds(relayFitsFrom)} or more fits (${count(relayRequestsPerHour(relayFitsFrom))} an hour).`;
  return `${direct}; ${relayed}`;
}

/** What the interval field's note says: the rule, or why the numbers use another interval. */
export function describeInterval(typed: string, reading: IntervalReading): string {
  if (reading.adjustment === 'raised')
    return `${typed.trim()} s is below the element’s minimum: it polls every ${seconds(MIN_INTERVAL_SECONDS)}, so the numbers use ${seconds(MIN_INTERVAL_SECONDS)}.`;
  if (reading.adjustment === 'default')
    return `No interval given: the element uses its default of ${seconds(DEFAULT_INTERVAL_SECONDS)}, and so do the numbers.`;
  return `The element polls at most every ${seconds(MIN_INTERVAL_SECONDS)}; lower values are raised to ${seconds(MIN_INTERVAL_SECONDS)}.`;
}

function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(PLANS, value);
}

/** Reads the calculator's form on every input and writes the figures, the note and the verdict. */
export function wirePlanCalculator(form: HTMLFormElement): void {
  const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
  const text = (id: string) => document.getElementById(id)!;
  const update = () => {
    const typedInterval = field('interval').value;
    const interval = readInterval(typedInterval);
    const plan = field('plan').value;
    const estimate = estimatePlan(isPlanId(plan) ? plan : 'free', readShoppers(field('shoppers').value), interval.seconds);
    text('plan-interval-note').textContent = describeInterval(typedInterval, interval);
    text('plan-direct').textContent = describeDirect(estimate);
    text('plan-relay').textContent = describeRelay(estimate);
    text('plan-verdict').textContent = describeVerdict(estimate);
    // Only for the colour: the words already say "over" or "within".
    text('plan-direct').dataset.over = String(estimate.direct > estimate.hourlyLimit);
    text('plan-relay').dataset.over = String(estimate.relay > estimate.hourlyLimit);
  };
  form.addEventListener('input', update);
  form.addEventListener('submit', (event) => event.preventDefault());
  update();
}

const calculator = typeof document === 'undefined' ? null : document.querySelector<HTMLFormElement>('#plan-calculator');
if (calculator) wirePlanCalculator(calculator);
