import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import rules from '../src/contract/rules.json' with { type: 'json' };
import { holdoutKey } from '../src/holdout.js';
import { recordKey } from '../src/realtime/storage.js';
import { cssDeclarations } from './support/css-declarations.js';
import { collapseWhitespace, readmeSnippet } from './support/readme-snippet.js';

describe("the README's snippet", () => {
  it("is, word for word, the demo's script-tag page", () => {
    const demo = readFileSync(fileURLToPath(import.meta.url).replace(/test\/readme-snippet\.test\.ts$/, 'demo/script-tag.html'), 'utf8');
    const { script, elementStyle } = readmeSnippet('/live-visitors.js');
    expect(collapseWhitespace(demo)).toContain(collapseWhitespace(script));
    expect(demo).toContain(`style="${elementStyle}"`);
  });

  it("keeps the contract's reserved lines (rules.json's reservedLinesStyle, which the placement and both plugins write)", () => {
    expect(cssDeclarations(readmeSnippet('/live-visitors.js').elementStyle)).toBe(rules.reservedLinesStyle);
    // The placement's reference table names the style a placed element gets.
    const readme = readFileSync(fileURLToPath(import.meta.url).replace(/test\/readme-snippet\.test\.ts$/, 'README.md'), 'utf8');
    const placed = /replaces the reserved `([^`]+)`/.exec(readme)?.[1];
    expect(placed && cssDeclarations(placed)).toBe(rules.reservedLinesStyle);
  });

  it('looks for a stored count under the very prefix the feed stores it under', () => {
    const { script } = readmeSnippet('/live-visitors.js');
    const prefix = /startsWith\('([^']+)'\)/.exec(script)?.[1];
    expect(prefix).toBeDefined();
    expect(recordKey('https://analytics.example.com', 'shop-1').startsWith(prefix!)).toBe(true);
    // The holdout's draw is stored too, but is no count: it must not make a visit look warm.
    expect(holdoutKey('shop-1').startsWith(prefix!)).toBe(false);
  });
});
