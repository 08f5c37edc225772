/**
 * A shop's permanent domain (`name.myshopify.com`): what Shopify signs into every App Proxy
 * request, the admin's launch, a session token's `dest` and a webhook's shop header. Here, not in
 * the config, so the Shopify app and the config both read it without importing each other.
 */
export const SHOPIFY_SHOP_SYNTAX = /^[a-z0-9][a-z0-9-]{0,99}\.myshopify\.com$/;
