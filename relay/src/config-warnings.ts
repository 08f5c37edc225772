import { isLoopbackHost } from '../../server-kit/loopback.js';
import type { RelayConfig } from './config.js';

/** Non-fatal advice about a valid config: printed by the command, worth logging elsewhere. */
export function relayConfigWarnings(config: RelayConfig): string[] {
  const warnings: string[] = [];
  const needed = upstreamRequestsPerHour(config);
  if (needed > config.hourlyBudget) {
    const interval = smallestIntervalWithin(config.hourlyBudget, config.websites.length);
    const fix = interval === undefined ? 'Raise hourlyBudget' : `Set interval to at least ${interval}, or raise hourlyBudget`;
    warnings.push(
      `${config.websites.length} website(s) refreshed every ${config.interval} s need up to ${needed} upstream requests an hour, ` +
        `more than hourlyBudget (${config.hourlyBudget}): late in each hour answers go stale, then fail. ` +
        `${fix} if your plan allows.`,
    );
  }
  if (config.storeDownBudget > 0 && config.store !== 'memory') {
    warnings.push(
      `storeDownBudget (${config.storeDownBudget}): while the store is unreachable each instance may ask upstream on its own, ` +
        'so N instances may send N times that on top of hourlyBudget. Keep N × storeDownBudget within what your plan leaves.',
    );
  }
  if (config.shopifyAppSecret !== null && !config.websites.some((website) => website.shop !== undefined)) {
    warnings.push(
      'shopifyAppSecret is set but no website names its shop: add "shop": "name.myshopify.com" to the website the App Proxy serves.',
    );
  }
  const upstream = new URL(config.upstream);
  if (upstream.protocol === 'http:' && !isLoopbackHost(upstream.hostname)) {
    warnings.push('upstream uses plain http to another machine: the API tokens cross the network unencrypted. Use https.');
  }
  return warnings;
}

/** Most upstream requests a healthy relay sends in a rolling hour: one per website per interval. */
export function upstreamRequestsPerHour(config: Pick<RelayConfig, 'websites' | 'interval'>): number {
  return config.websites.length * Math.ceil(3_600 / config.interval);
}

/** The shortest interval whose requests fit the budget, or undefined when even one an hour per website does not. */
export function smallestIntervalWithin(hourlyBudget: number, websites: number): number | undefined {
  const perWebsite = Math.floor(hourlyBudget / websites);
  return perWebsite === 0 ? undefined : Math.ceil(3_600 / perWebsite);
}
