import { expect, it } from 'vitest';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import { cssDeclarations } from '../../../test/support/css-declarations.js';
import { renderBlock } from './support/shopify-liquid.js';

// Liquid cannot read rules.json, so the snippet writes the reserved lines out; this holds its
// literal equal to the contract's `reservedLinesStyle` (rendered with liquidjs, as in rendering.test.ts).

it("the block's element keeps the contract's reserved lines, then the merchant's alignment", async () => {
  const block = await renderBlock('live-visitors.liquid', { website_id: 'shop', alignment: 'center' }, { assetBase: '/cdn' });
  const style = /<live-visitors[^>]*\sstyle="([^"]*)"/.exec(block)?.[1];
  expect(style).toBeDefined();
  const declarations = cssDeclarations(style!);
  expect(declarations.slice(0, rules.reservedLinesStyle.length + 1)).toBe(`${rules.reservedLinesStyle};`);
  expect(declarations.slice(rules.reservedLinesStyle.length)).toMatch(/^;text-align:center(;|$)/);
});
