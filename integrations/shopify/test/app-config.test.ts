import { readFileSync } from 'node:fs';
import { ApiVersion } from '@shopify/shopify-api';
import { parse } from 'smol-toml';
import { expect, it } from 'vitest';
import { SHOPIFY_APP_PATH, SHOPIFY_WEBHOOKS_PATH } from '../../../relay/src/shopify-app/shopify-app.js';
import { WEBHOOK_TOPICS } from '../../../relay/src/shopify-app/webhooks.js';

/**
 * shopify.app.toml as Shopify CLI reads it (checked against its documented fields; the CLI and
 * `shopify app deploy` need Shopify's servers and do not run here), and against what the relay
 * serves: the paths, the topics, the App Proxy the blocks ask.
 */
/** The fields this app sets, as Shopify's app configuration reference names them. */
interface AppConfiguration {
  client_id: string;
  embedded: boolean;
  application_url: string;
  auth: { redirect_urls: string[] };
  access_scopes: { scopes: string };
  webhooks: { api_version: string; subscriptions: Array<{ topics?: string[]; compliance_topics?: string[]; uri: string }> };
  app_proxy: { url: string; prefix: string; subpath: string };
}
const app = parse(readFileSync(new URL('../shopify.app.toml', import.meta.url), 'utf8')) as unknown as AppConfiguration;
const RELAY = 'https://relay.example';

it('is an embedded app whose admin page is the relay’s, with a placeholder client id that says to replace it', () => {
  expect(app.client_id).toBe('REPLACE-WITH-YOUR-CLIENT-ID');
  expect(app.embedded).toBe(true);
  expect(app.application_url).toBe(`${RELAY}${SHOPIFY_APP_PATH}`);
  expect(app.auth.redirect_urls).toEqual([`${RELAY}${SHOPIFY_APP_PATH}`]);
});

it('asks for write_app_proxy and nothing more', () => {
  expect(app.access_scopes.scopes.split(',').map((scope) => scope.trim())).toEqual(['write_app_proxy']);
});

it('sends app/uninstalled and the three compliance topics to the relay, at an API version the official library knows', () => {
  expect(Object.values(ApiVersion).filter((version) => version !== ApiVersion.Unstable)).toContain(app.webhooks.api_version as ApiVersion);
  const subscriptions = app.webhooks.subscriptions;
  for (const subscription of subscriptions) expect(subscription.uri).toBe(`${RELAY}${SHOPIFY_WEBHOOKS_PATH}`);
  expect(subscriptions.flatMap((subscription) => subscription.topics ?? [])).toEqual(['app/uninstalled']);
  expect(subscriptions.flatMap((subscription) => subscription.compliance_topics ?? []).sort()).toEqual([
    'customers/data_request',
    'customers/redact',
    'shop/redact',
  ]);
  expect([...WEBHOOK_TOPICS].sort()).toEqual(['app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact']);
});

it('proxies /apps/live-visitors, where the blocks ask, to the relay’s root', () => {
  expect(app.app_proxy).toEqual({ url: RELAY, prefix: 'apps', subpath: 'live-visitors' });
  const element = readFileSync(new URL('../extensions/live-visitors/snippets/live-visitors-element.liquid', import.meta.url), 'utf8');
  expect(element).toContain('/apps/live-visitors');
});
