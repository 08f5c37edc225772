import { readmeSnippet } from '../../support/readme-snippet.js';
import type { StaticSite } from './static-site.js';

/**
 * A shop's offer page with the README's snippet word for word (at /offer.html, asking `serviceUrl`)
 * and a category page linking to it (/category.html), as a shopper browsing the shop reaches it.
 */
export function putReadmeOfferPages(site: StaticSite, serviceUrl: string): void {
  const { script, elementStyle } = readmeSnippet('/live-visitors.js');
  site.put(
    '/offer.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
     <meta name="viewport" content="width=device-width, initial-scale=1">
     <style>body { font: 17px/1.5 sans-serif; margin: 0 20px; }</style>${script}</head>
     <body><h1>Winter sale</h1><p class="offer">−30% today only, 4 left in stock.</p>
     <live-visitors website-id="demo-shop" token="demo-token" api-base="${serviceUrl}" style="${elementStyle}"></live-visitors>
     <button>Add to cart</button><p>Free returns within 30 days.</p></body></html>`,
  );
  site.put(
    '/category.html',
    '<!doctype html><html lang="en"><title>Beans</title><body><a href="/offer.html">Nordic Roast</a></body></html>',
  );
}
