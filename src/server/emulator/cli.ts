// Entry of `npm run emulator`; everything testable lives in command.ts.
import { runEmulatorCommand, type CommandIo } from './command.js';

const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  onStopSignal(handler) {
    const signals = ['SIGINT', 'SIGTERM'] as const;
    for (const signal of signals) process.on(signal, handler);
    return () => {
      for (const signal of signals) process.off(signal, handler);
    };
  },
};

// Exit explicitly: a stopped emulator has nothing left to do, whatever handle lingers.
process.exit(await runEmulatorCommand(process.argv.slice(2), processIo));
