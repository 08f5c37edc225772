import { afterEach, describe, expect, it, vi } from 'vitest';

// The classic loader (dist/live-visitors-loader.js) and the script-tag entry, run as modules here;
// the browser suite loads the built loader as the classic script Tag Manager adds.

// A classic script, not a module, so TypeScript has nothing to import: vitest runs it by its path.
const LOADER: string = '../src/loader.ts';
const runLoader = () => import(/* @vite-ignore */ LOADER);

const global = globalThis as { liveVisitors?: unknown };

afterEach(() => {
  document.head.innerHTML = '';
  delete global.liveVisitors;
  vi.resetModules();
});

describe('the classic loader', () => {
  it.each([
    [
      'https://cdn.example/npm/live-visitors@1/dist/live-visitors-loader.js',
      'https://cdn.example/npm/live-visitors@1/dist/live-visitors.js',
    ],
    // Shopify's asset_url: the version stamp goes along.
    [
      'https://shop.example/cdn/shop/t/1/assets/live-visitors-loader.js?v=171',
      'https://shop.example/cdn/shop/t/1/assets/live-visitors.js?v=171',
    ],
  ])('from %s adds the module %s', async (src, expected) => {
    const loader = document.createElement('script');
    loader.src = src;
    vi.spyOn(document, 'currentScript', 'get').mockReturnValue(loader);
    // Kept from happy-dom, which would go and fetch it.
    const added: HTMLScriptElement[] = [];
    vi.spyOn(document.head, 'append').mockImplementation((...nodes) => added.push(...(nodes as HTMLScriptElement[])));
    await runLoader();
    expect(added.map((script) => [script.type, script.src])).toEqual([['module', expected]]);
  });

  it('run without a script of its own (as a module, or inline): one warning, nothing added', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.spyOn(document, 'currentScript', 'get').mockReturnValue(null);
    await runLoader();
    expect(document.head.querySelectorAll('script')).toHaveLength(0);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe('the script-tag entry', () => {
  it('registers the element, exports it, and starts the placement queue', async () => {
    const entry = await import('../src/script-tag.js');
    expect(entry.TAG_NAME).toBe('live-visitors');
    expect(customElements.get('live-visitors')).toBe(entry.LiveVisitors);
    expect(Array.isArray(global.liveVisitors)).toBe(true);
    expect((global.liveVisitors as unknown[]).push).not.toBe(Array.prototype.push);
  });
});
