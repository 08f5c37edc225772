#!/usr/bin/env node
// The bin `live-visitors-relay` and `npm run relay`; everything testable lives in command.ts and rotate-keys-command.ts.
import { main, processIo } from '../../server-kit/command.js';
import { relayCommand } from './command.js';
import { runRotateKeys } from './rotate-keys-command.js';

if (process.argv[2] === 'rotate-keys') process.exit(await runRotateKeys(process.argv.slice(3), processIo()));
await main(relayCommand);
