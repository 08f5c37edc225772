import { join } from 'node:path';
import { describeRelayContract } from './contract-checks.js';
import { ROOT, startRelayProcess, TEMPLATES } from './runtime-support.js';

const template = join(TEMPLATES, 'node');

// The bin as npx runs it: relay.json holds the settings, the environment the tokens (and the emulator's URL).
describeRelayContract('Node, the live-visitors-relay command', (environment) =>
  startRelayProcess(process.execPath, [join(ROOT, 'relay/dist/cli.js'), '--port', '0', '--config', join(template, 'relay.json')], {
    cwd: template,
    env: environment,
  }),
);

// As the template says: `node server.ts`, Node stripping the types itself.
describeRelayContract('Node, started in code', (environment) =>
  startRelayProcess(process.execPath, ['server.ts'], { cwd: template, env: { ...environment, PORT: '0' } }),
);
