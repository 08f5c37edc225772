import { join } from 'node:path';
import { describeRelayContract } from './contract-checks.js';
import { startRelayProcess, TEMPLATES } from './runtime-support.js';

const app = join(TEMPLATES, 'nextjs/app');

// The route module on Node, Next.js's default runtime for route handlers, called as Next.js
// calls it (the export named after the method); Next.js itself is not installed here.
describeRelayContract('Next.js (App Router route handler, through a tiny Node server)', (environment) =>
  startRelayProcess(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'serve-route.ts'), 'nextjs', app, join(app, 'api/v1/realtime/route.ts')],
    {
      cwd: join(TEMPLATES, 'nextjs'),
      env: environment,
    },
  ),
);
