import { sourceFieldsHtml } from '../registry/source-form.js';

/** App Bridge, as Shopify requires it: from its CDN, never bundled, the first script of the page. */
export const APP_BRIDGE_URL = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';

/** The theme app extension's blocks (integrations/shopify/extensions/live-visitors/blocks/), for the deep links. */
export const APP_BLOCK_HANDLE = 'live-visitors';
export const APP_EMBED_HANDLE = 'live-visitors-embed';

export interface AdminPageOptions {
  readonly clientId: string;
  /** The shop Shopify signed the launch for: the only one that may frame the page. */
  readonly shop: string;
  /** The page's own path: its script and its settings API are below it. */
  readonly pagePath: string;
}

/**
 * The embedded admin page at `GET /shopify/app`: a form for the website ID and the API token (the
 * token write-only: only its last four characters ever come back), the live count once saved, and
 * the theme editor's deep links to add the block and to turn on the embed. Plain HTML and one
 * script of our own: no framework, nothing inline that runs.
 */
export function adminPageResponse(options: AdminPageOptions): Response {
  const nonce = crypto.randomUUID();
  const policy = [
    "default-src 'none'",
    `script-src 'self' https://cdn.shopify.com`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self' https://*.shopify.com",
    "img-src 'self' data: https://cdn.shopify.com",
    // Shopify's rule for embedded apps: only the shop's admin may frame them.
    `frame-ancestors https://${options.shop} https://admin.shopify.com`,
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
  return new Response(adminPage(options, nonce), {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': policy,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

/**
 * The theme editor of the shop's live theme, at the product template: adding the app block to its
 * main section, or opening App embeds with this app's embed. The id is `{client id}/{block file}`,
 * its slash written as Shopify's deep-link documentation writes it, not percent-encoded.
 */
export function themeEditorLinks(shop: string, clientId: string): { readonly addBlock: string; readonly turnOnEmbed: string } {
  const editor = `https://${shop}/admin/themes/current/editor`;
  const id = (handle: string) => `${encodeURIComponent(clientId)}/${handle}`;
  return {
    addBlock: `${editor}?template=product&addAppBlockId=${id(APP_BLOCK_HANDLE)}&target=mainSection`,
    turnOnEmbed: `${editor}?context=apps&template=product&activateAppId=${id(APP_EMBED_HANDLE)}`,
  };
}

function adminPage({ clientId, shop, pagePath }: AdminPageOptions, nonce: string): string {
  const links = themeEditorLinks(shop, clientId);
  // Relative to the page (`app/admin.js` from `/shopify/app`), so a relay behind a reverse proxy's path prefix serves them too.
  const below = escapeHtml(pagePath.slice(pagePath.lastIndexOf('/') + 1));
  return `<!doctype html>
<html lang="en">
<head>
<meta name="shopify-api-key" content="${escapeHtml(clientId)}">
<script src="${APP_BRIDGE_URL}"></script>
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Live visitors</title>
<style nonce="${nonce}">
  body { font: 14px/1.5 system-ui, sans-serif; margin: 0; padding: 1rem; color: #303030; background: #f1f1f1; }
  main { max-width: 40rem; margin: 0 auto; padding: 1rem 1.25rem; background: #fff; border-radius: 0.75rem; }
  label { display: block; margin: 0.75rem 0 0.25rem; font-weight: 600; }
  input { box-sizing: border-box; width: 100%; padding: 0.4rem 0.5rem; font: inherit; border: 1px solid #8a8a8a; border-radius: 0.5rem; }
  button { margin-top: 1rem; padding: 0.4rem 1rem; font: inherit; font-weight: 600; color: #fff; background: #303030; border: 0; border-radius: 0.5rem; }
  [role="status"] { min-height: 1.5em; }
  [data-state="error"] { color: #8e1f0b; }
  .hint { color: #616161; margin: 0.25rem 0 0; }
</style>
<script type="module" src="${below}/admin.js"></script>
</head>
<body>
<main data-settings="${below}/settings">
<h1>Live visitors</h1>
<p>Shows your shop's real number of visitors right now beside your products. Enter your website's ID and API token from the realtime visitors service once: the token stays on the relay, encrypted, and never reaches your shop's pages.</p>
<form>
<label for="website-id">Website ID</label>
<input id="website-id" name="websiteId" required maxlength="256" autocomplete="off" spellcheck="false">
${sourceFieldsHtml()}
<div id="token-field">
<label for="token">API token</label>
<input id="token" name="token" type="password" required maxlength="256" autocomplete="off" spellcheck="false">
<p class="hint" id="token-saved" hidden>The saved token ends in <strong></strong>. To change the website or the token, enter the token again.</p>
</div>
<button type="submit">Save</button>
</form>
<p role="status" aria-live="polite" id="status"></p>
<section id="next" hidden>
<h2>Show it in your theme</h2>
<ol>
<li><a target="_top" href="${escapeHtml(links.addBlock)}">Add the Live visitors block to your product page</a>, then drag it under the price or the buy buttons and save.</li>
<li>A theme without app blocks: <a target="_top" href="${escapeHtml(links.turnOnEmbed)}">turn on the Live visitors app embed</a> and give it a CSS selector to place the count by.</li>
</ol>
</section>
</main>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
