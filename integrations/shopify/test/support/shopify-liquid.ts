import { Liquid, TokenKind, type TopLevelToken } from 'liquidjs';
import { type BlockFile, EXTENSION, readBlock, readLocale, schemaOf, translation } from './extension.js';

export interface StorefrontContext {
  /** Where Shopify's CDN serves the extension's assets; `asset_url` appends the file name. */
  readonly assetBase: string;
  /** `request.design_mode`: true inside the theme editor. */
  readonly designMode?: boolean;
  /** The storefront's language, for the `t` filter (`en` reads `en.default.json`). */
  readonly locale?: string;
  /** `shop.permanent_domain`, a global object every snippet sees: the shop's `name.myshopify.com`. */
  readonly shopDomain?: string;
}

/**
 * liquidjs with what these blocks use of Shopify's Liquid, defined as Shopify documents it:
 * - `{% schema %}`: its JSON configures the theme editor and renders nothing;
 * - `asset_url`: the CDN URL of a file in the extension's `assets/` folder;
 * - `t`: the storefront translation of a key from `locales/<language>.json`, falling back to the
 *   default locale, HTML-escaped unless the key ends in `_html`;
 * - `json`: the value as JSON (here only an asset URL and a translation go through it);
 * - `render`: a snippet from `snippets/`, with only the variables passed to it and the global
 *   objects (here `shop.permanent_domain`) (liquidjs's own).
 * `escape`, `strip`, `append`, `divided_by` and `blank` are standard Liquid, as liquidjs has them.
 */
export function shopifyLiquid(context: StorefrontContext): Liquid {
  const liquid = new Liquid({
    root: [new URL('blocks/', EXTENSION).pathname],
    partials: [new URL('snippets/', EXTENSION).pathname],
    extname: '.liquid',
    strictFilters: true,
    // A snippet does not see its caller's variables; `render` tags pass what it needs.
    relativeReference: false,
    // Shopify's global objects, which snippets see too.
    globals: { shop: { permanent_domain: context.shopDomain ?? 'test-shop.myshopify.com' } },
  });
  liquid.registerTag('schema', {
    parse(_token, remainTokens: TopLevelToken[]) {
      for (let token = remainTokens.shift(); ; token = remainTokens.shift()) {
        if (!token) throw new Error('{% schema %} without {% endschema %}');
        if (token.kind === TokenKind.Tag && (token as unknown as { name: string }).name === 'endschema') return;
      }
    },
    render: () => '',
  });
  liquid.registerFilter('asset_url', (name: string) => `${context.assetBase}/${name}`);
  liquid.registerFilter('json', (value: unknown) => JSON.stringify(value ?? null));
  liquid.registerFilter('t', async (key: string) => {
    const text = (await translationOf(context.locale ?? 'en', key)) ?? `translation missing: ${context.locale ?? 'en'}.${key}`;
    return key.endsWith('_html') ? text : escapeHtml(text);
  });
  return liquid;
}

async function translationOf(locale: string, key: string): Promise<string | undefined> {
  for (const file of locale === 'en' ? ['en.default.json'] : [`${locale}.json`, 'en.default.json']) {
    // No such locale file: the default locale answers.
    const table = await readLocale(file).catch(() => undefined);
    const text = table && translation(table, key);
    if (typeof text === 'string') return text;
  }
  return undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * Renders a block as a storefront would: its settings are the schema's defaults with the
 * merchant's values on top (a setting without a default and no value is blank), and
 * `block.shopify_attributes` is the editor's data attribute in design mode, empty elsewhere.
 */
export async function renderBlock(file: BlockFile, merchantSettings: Record<string, unknown>, context: StorefrontContext): Promise<string> {
  const source = await readBlock(file);
  const defaults = Object.fromEntries(
    schemaOf(source)
      .settings.filter((setting) => setting.id !== undefined)
      .map((setting) => [setting.id!, setting.default ?? '']),
  );
  const block = {
    id: 'AbCdEf123',
    settings: { ...defaults, ...merchantSettings },
    shopify_attributes: context.designMode ? `data-shopify-editor-block="{&quot;id&quot;:&quot;AbCdEf123&quot;}"` : '',
  };
  return shopifyLiquid(context).parseAndRender(source, { block, request: { design_mode: context.designMode ?? false } });
}
