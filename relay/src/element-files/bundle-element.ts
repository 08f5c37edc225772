/**
 * The command behind the relay's build step: `tsx relay/src/element-files/bundle-element.ts` writes
 * the element's files into the relay; `--placeholder` only makes sure a module is there (at install).
 * A file of its own: Vite bundles its config with the demo's plugin, which imports the step, and a
 * "run me when I am the main module" test inside the step would then run again in every build it starts.
 */
import { writeBundledElement, writePlaceholderIfMissing } from './write-bundled-element.js';

if (process.argv.includes('--placeholder')) {
  writePlaceholderIfMissing();
} else {
  const folder = await writeBundledElement();
  console.log(`live-visitors-relay: the element's files (${folder}) bundled into the relay`);
}
