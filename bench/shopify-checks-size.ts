// `npx tsx bench/shopify-checks-size.ts`: what the Shopify app's three checks (session token,
// webhook HMAC, the admin's launch query) weigh in a Worker's bundle, done by Shopify's official
// library through its Web API adapter against the relay's own Web Crypto code. The library is the
// baseline: it is what issue 31 §2 asks for unless a measurement says otherwise, and this is that
// measurement (integrations/shopify/README.md quotes it).
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { kilobytes, printTable, ratio } from './table.js';

/** The three checks as an app would call them with the library: one configured client, its three methods kept. */
const LIBRARY_ENTRY = `
import '@shopify/shopify-api/adapters/web-api';
import { ApiVersion, shopifyApi } from '@shopify/shopify-api';
const shopify = shopifyApi({ apiKey: 'id', apiSecretKey: 'secret', apiVersion: ApiVersion.July26, hostName: 'relay.example', isEmbeddedApp: true });
export const checks = [shopify.session.decodeSessionToken, shopify.webhooks.validate, shopify.utils.validateHmac];
`;

/** The same three in the relay: the modules its Shopify app calls for them. */
const RELAY_ENTRY = `
export { SessionTokenVerifier } from './relay/src/shopify-app/session-token.ts';
export { answerWebhook } from './relay/src/shopify-app/webhooks.ts';
export { verifyLaunchQuery } from './relay/src/shopify-app/launch-query.ts';
`;

/**
 * Minified ES module for a browser-like runtime (what a Worker runs), every import bundled but the
 * relay's config module, which the checks take a shop's syntax from and every relay bundle carries anyway.
 */
async function bundledBytes(contents: string): Promise<Uint8Array> {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'ts', sourcefile: 'entry.ts' },
    plugins: [
      {
        name: 'relay-config-already-there',
        setup(build) {
          build.onResolve({ filter: /^\.\.\/config\.js$/ }, ({ path }) => ({ path, external: true }));
        },
      },
    ],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.contents;
}

export async function benchShopifyChecksSize(): Promise<void> {
  const library = await bundledBytes(LIBRARY_ENTRY);
  const relay = await bundledBytes(RELAY_ENTRY);
  const row = (what: string, bytes: Uint8Array) => {
    const gzip = gzipSync(bytes, { level: 9 }).length;
    return {
      what,
      minified: kilobytes(bytes.length),
      gzip: kilobytes(gzip),
      'gzip vs library': ratio(gzip, gzipSync(library, { level: 9 }).length),
    };
  };
  printTable("The Shopify app's three checks in a Worker's bundle (esbuild, minified ES module, gzip level 9)", [
    row('@shopify/shopify-api + Web API adapter (baseline)', library),
    row("the relay's own (relay/src/shopify-app/)", relay),
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchShopifyChecksSize();
