#!/usr/bin/env node
// Entry of `live-visitors-relay` and `npm run relay`; everything testable lives in command.ts.
import { runRelayCommand } from './command.js';

const signals = ['SIGINT', 'SIGTERM'] as const;

// Exit explicitly: a stopped relay has nothing left to do, whatever handle lingers.
process.exit(
  await runRelayCommand(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    onStopSignal(handler) {
      for (const signal of signals) process.on(signal, handler);
      return () => {
        for (const signal of signals) process.off(signal, handler);
      };
    },
  }),
);
