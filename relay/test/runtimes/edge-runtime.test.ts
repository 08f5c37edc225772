import { join } from 'node:path';
import { format } from 'node:util';
import { EdgeRuntime, runServer } from 'edge-runtime';
import { describeRelayContract } from './contract-checks.js';
import { bundleTemplate, TEMPLATES } from './runtime-support.js';

const route = join(TEMPLATES, 'vercel-edge/api/v1/realtime.ts');

// Vercel's own Edge Runtime (the `edge-runtime` package, a V8 context with only the edge's globals),
// running the function bundled as Vercel bundles it, with Vercel's `process.env` and a FetchEvent per request.
describeRelayContract('Vercel Edge Functions (edge-runtime)', async (environment) => {
  const code = await bundleTemplate(route, { format: 'iife', globalName: 'edgeFunction', conditions: ['edge-light', 'worker', 'browser'] });
  let output = '';
  const print = (...values: unknown[]) => {
    output += `${format(...values)}\n`;
  };
  const runtime = new EdgeRuntime({
    initialCode: `${code}\naddEventListener('fetch', (event) => event.respondWith(edgeFunction.default(event.request)));`,
    extend: (context) =>
      Object.assign(context, {
        process: { env: { ...environment } },
        console: { log: print, info: print, debug: print, warn: print, error: print },
      }),
  });
  // What makes Vercel run the function on the edge, not on Node.
  if (runtime.evaluate<string>('edgeFunction.config.runtime') !== 'edge') throw new Error('the template does not declare the edge runtime');
  const server = await runServer({ runtime, port: 0, host: '127.0.0.1' });
  return { url: server.url.replace(/\/$/, ''), output: () => output, stop: () => server.close() };
});
