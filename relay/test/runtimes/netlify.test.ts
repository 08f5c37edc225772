import { join } from 'node:path';
import { describeRelayContract } from './contract-checks.js';
import { startRelayProcess, TEMPLATES } from './runtime-support.js';

// Netlify Functions run on Node: the function's default export on the path of its `config`,
// as Netlify routes it; the Netlify CLI itself is not installed here.
describeRelayContract('Netlify Functions (through a tiny Node server)', (environment) =>
  startRelayProcess(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'serve-route.ts'), 'netlify', join(TEMPLATES, 'netlify/netlify/functions/realtime.ts')],
    {
      cwd: join(TEMPLATES, 'netlify'),
      env: environment,
    },
  ),
);
