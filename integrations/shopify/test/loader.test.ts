import { expect, it } from 'vitest';
import { collapseWhitespace, readmeSnippet } from '../../../test/support/readme-snippet.js';
import { shopifyLiquid } from './support/shopify-liquid.js';

const ASSET_BASE = 'https://cdn.shopify.example/extensions/0c4e8b1a/0.0.1/assets';
const SCRIPT_URL = `${ASSET_BASE}/live-visitors.js`;

/** The lines that make a second render (the block and the embed on one page) do nothing. */
const ONCE_GUARD = /const once = Symbol\.for\('live-visitors:loader'\);\s*if \(window\[once\]\) return;\s*window\[once\] = true;\s*/;

/** `// …` comments, not the `//` inside a URL. */
const withoutLineComments = (code: string) => code.replace(/(^|\s)\/\/[^\n]*/g, '$1');

it("is the README's quick-start snippet word for word, with the CDN's URL and a guard against loading twice", async () => {
  const rendered = await shopifyLiquid({ assetBase: ASSET_BASE }).parseAndRender("{% render 'live-visitors-loader' %}");
  expect(rendered).toMatch(ONCE_GUARD);
  const readme = withoutLineComments(readmeSnippet(SCRIPT_URL).script).replace(`'${SCRIPT_URL}'`, JSON.stringify(SCRIPT_URL));
  expect(collapseWhitespace(rendered.replace(ONCE_GUARD, ''))).toBe(collapseWhitespace(readme));
});
