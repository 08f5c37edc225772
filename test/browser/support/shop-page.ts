/** Attributes of the `<live-visitors>` elements on a test shop page (all share one website). */
export interface ShopPageOptions {
  apiBase: string;
  elements?: number;
  websiteId?: string;
  token?: string;
  /** Extra attributes, e.g. `{ 'max-age': '120' }`. */
  attributes?: Record<string, string>;
}

export const FALLBACK_TEXT = 'Fresh from the roaster: ships tomorrow.';

/** A plain HTML product page as a shop would write it: one script tag, the elements beside offers. */
export function shopPage({
  apiBase,
  elements = 1,
  websiteId = 'demo-shop',
  token = 'demo-token',
  attributes = {},
}: ShopPageOptions): string {
  const extra = Object.entries({ ...attributes, 'api-base': apiBase, token, 'website-id': websiteId })
    .map(([name, value]) => ` ${name}="${value.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"`)
    .join('');
  const offers = Array.from(
    { length: elements },
    (_, index) =>
      `<p class="offer">Offer ${index + 1}: −30% today. <live-visitors${extra}><span slot="fallback">${FALLBACK_TEXT}</span></live-visitors></p>`,
  ).join('\n    ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Shop</title>
    <link rel="icon" href="data:," />
    <script type="module" src="/live-visitors.js"></script>
  </head>
  <body>
    ${offers}
  </body>
</html>`;
}
