import { builtScripts } from './built-scripts.js';
import { serveOnLoopback } from './loopback-server.js';

export interface StaticSite {
  /** Origin without a trailing slash. */
  url: string;
  /** Adds or replaces a page (or any file) at `path`. */
  put(path: string, body: string, type?: string): void;
  close(): Promise<void>;
}

/**
 * Serves the built `dist/live-visitors.js` with the files beside it (`/live-visitors-*.js`)
 * and pages the tests write, on 127.0.0.1, as a shop's web server would: the pages are plain
 * HTML, the widget comes from one script tag.
 */
export async function startStaticSite(): Promise<StaticSite> {
  const files = new Map<string, { body: string; type: string }>();
  for (const [path, body] of await builtScripts()) files.set(path, { body, type: 'text/javascript' });
  const server = await serveOnLoopback((request) => {
    const file = files.get(new URL(request.url).pathname);
    if (!file) return new Response('Not found', { status: 404 });
    return new Response(file.body, { headers: { 'content-type': `${file.type}; charset=utf-8`, 'cache-control': 'no-store' } });
  });
  return {
    url: server.url,
    put(path, body, type = 'text/html') {
      files.set(path, { body, type });
    },
    close: server.close,
  };
}
