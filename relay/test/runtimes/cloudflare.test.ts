import { Miniflare } from 'miniflare';
import { describeRelayContract } from './contract-checks.js';
import { captureOutput, templateWorker } from './workerd-support.js';

// workerd, Cloudflare's runtime, through Miniflare (what `wrangler dev` runs): the Worker and its
// Durable Object as wrangler.toml declares them, the test's secrets as .dev.vars would give them.
describeRelayContract('Cloudflare Workers (workerd, with the Durable Object)', async (environment) => {
  const stdio = captureOutput();
  const miniflare = new Miniflare({
    ...(await templateWorker(environment)),
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio: stdio.handleRuntimeStdio,
  });
  const url = await miniflare.ready;
  return { url: url.origin, output: stdio.output, stop: () => miniflare.dispose() };
});
