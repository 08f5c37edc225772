// Entry of `npm run emulator`; everything testable lives in command.ts.
import { main } from '../../server-kit/command.js';
import { emulatorCommand } from './command.js';

await main(emulatorCommand);
