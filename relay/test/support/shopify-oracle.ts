import '@shopify/shopify-api/adapters/web-api';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';

/**
 * Shopify's official library (`@shopify/shopify-api` 15, through its Web API adapter), the oracle
 * the app's checks are held to: what it signs is accepted, what it refuses is refused. It judges
 * time by `Date`, so tests that compare verdicts fake `Date` to the relay's wall clock.
 */
export const CLIENT_ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
export const CLIENT_SECRET = 'shpss_0123456789abcdef0123456789abcdef';
export const SHOP = 'demo-shop.myshopify.com';

export const shopify = shopifyApi({
  apiKey: CLIENT_ID,
  apiSecretKey: CLIENT_SECRET,
  apiVersion: ApiVersion.July26,
  hostName: 'relay.example',
  isEmbeddedApp: true,
  // Quiet: the library logs every refusal at info level otherwise.
  logger: { level: LogSeverity.Error, log: async () => undefined },
});

/** Whether the library's decodeSessionToken accepts the token (with its own 10 s leeway and audience check). */
export async function oracleAcceptsSessionToken(token: string): Promise<boolean> {
  return shopify.session.decodeSessionToken(token).then(
    () => true,
    () => false,
  );
}

/** Whether the library's webhook validation accepts this request (HMAC of the raw body, and Shopify's headers). */
export async function oracleAcceptsWebhook(request: Request, rawBody: string): Promise<boolean> {
  const verdict = await shopify.webhooks.validate({ rawBody, rawRequest: request });
  return verdict.valid;
}

/** Whether the library's validateHmac accepts the admin's launch query (its HMAC, and a timestamp within 90 s). */
export async function oracleAcceptsLaunch(query: URLSearchParams): Promise<boolean> {
  return shopify.utils.validateHmac(Object.fromEntries(query)).then(
    (valid) => valid,
    () => false,
  );
}
