import { createHmac } from 'node:crypto';

/**
 * Signs a query as Shopify's App Proxy does (its "Calculate a digital signature" steps), written
 * apart from the relay's verifier and with Node's own HMAC, so the two must agree independently:
 * values of a repeated key joined by commas, `key=value` pairs sorted, concatenated, HMAC-SHA256 hex.
 */
export function shopifySignature(pairs: ReadonlyArray<readonly [string, string]>, secret: string): string {
  const grouped = new Map<string, string[]>();
  for (const [key, value] of pairs) grouped.set(key, [...(grouped.get(key) ?? []), value]);
  const text = [...grouped]
    .map(([key, values]) => `${key}=${values.join(',')}`)
    .sort()
    .join('');
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** What Shopify forwards for `/apps/live-visitors/api/v1/realtime?websiteId=…`: the query with its parameters and signature. */
export function signedProxyQuery(options: {
  readonly websiteId: string;
  readonly shop: string;
  readonly secret: string;
  readonly timestampSeconds: number;
}): string {
  const pairs: Array<[string, string]> = [
    ['websiteId', options.websiteId],
    ['shop', options.shop],
    ['logged_in_customer_id', ''],
    ['path_prefix', '/apps/live-visitors'],
    ['timestamp', String(options.timestampSeconds)],
  ];
  const query = new URLSearchParams(pairs);
  query.append('signature', shopifySignature(pairs, options.secret));
  return `?${query}`;
}
