#!/usr/bin/env node
// The bin `live-visitors-relay` and `npm run relay`; everything testable lives in command.ts.
import { main } from '../../server-kit/command.js';
import { relayCommand } from './command.js';

await main(relayCommand);
