import { join } from 'node:path';
import { describeRelayContract } from './contract-checks.js';
import { BIN, startRelayProcess, TEMPLATES } from './runtime-support.js';

// The template's own deno.json maps the package to node_modules ("nodeModulesDir": "manual");
// --cached-only makes sure nothing is ever downloaded.
describeRelayContract('Deno', (environment) =>
  startRelayProcess(join(BIN, 'deno'), ['run', '--cached-only', '--allow-net', '--allow-env', '--allow-read', 'main.ts'], {
    cwd: join(TEMPLATES, 'deno'),
    env: { ...environment, PORT: '0', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1' },
  }),
);
