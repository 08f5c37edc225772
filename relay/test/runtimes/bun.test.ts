import { join } from 'node:path';
import { describeRelayContract } from './contract-checks.js';
import { BIN, startRelayProcess, TEMPLATES } from './runtime-support.js';

// --no-install: the package comes from node_modules, never from the registry.
describeRelayContract('Bun', (environment) =>
  startRelayProcess(join(BIN, 'bun'), ['--no-install', 'server.ts'], {
    cwd: join(TEMPLATES, 'bun'),
    env: { ...environment, PORT: '0' },
  }),
);
