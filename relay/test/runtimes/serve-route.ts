/**
 * A tiny Node server that calls a route module the way its platform does, for the templates whose
 * platform is not installed here (this is neither `next start` nor `netlify serve`):
 *
 *   node --import tsx serve-route.ts nextjs <app dir> <route file>
 *     Next.js App Router: the path from the route's folders, the handler exported under the method's name.
 *   node --import tsx serve-route.ts netlify <function file>
 *     Netlify Functions 2.0: the default export, on the path its `config` names.
 *
 * Other paths get 404, as the platform would answer them. Prints the URL it listens on; stops on SIGTERM.
 */
import { relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serveOnNode } from '../../../server-kit/serve.js';

type Handler = (request: Request) => Response | Promise<Response>;

const [platform, ...files] = process.argv.slice(2);
const route = await routeOf(platform, files);
const server = await serveOnNode(
  (request) => (new URL(request.url).pathname === route.path ? route.handle(request) : new Response('Not found', { status: 404 })),
  { port: 0, graceMs: 1_000 },
);
console.log(`${platform} route ${route.path} on ${server.url}`);
process.once('SIGTERM', () => void server.close());

async function routeOf(platform: string | undefined, files: string[]): Promise<{ path: string; handle: Handler }> {
  if (platform === 'nextjs' && files.length === 2) {
    const [appDir, file] = files as [string, string];
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const path = `/${relative(appDir, file).split(sep).slice(0, -1).join('/')}`;
    return {
      path,
      handle(request) {
        const handler = module[request.method];
        return typeof handler === 'function' ? (handler as Handler)(request) : new Response(null, { status: 405 });
      },
    };
  }
  if (platform === 'netlify' && files.length === 1) {
    const module = (await import(pathToFileURL(files[0]!).href)) as { default: Handler; config: { path: string } };
    return { path: module.config.path, handle: module.default };
  }
  throw new Error('usage: serve-route.ts nextjs <app dir> <route file> | netlify <function file>');
}
