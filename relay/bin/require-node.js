// Stops at once, in one line, on a Node older than `engines` (here rather than in a stack trace
// from whatever first uses a newer API). Imported first by the `live-visitors-relay` command, and
// run before `npm start` and `npm test` in a checkout, whose three packages name the same lines.
// Plain JavaScript without newer syntax, so that an old Node can read it.
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const numbers = (version) => version.split('.').map(Number);
const isOlder = (a, b) => {
  for (let i = 0; i < 3; i++) if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) < (b[i] || 0);
  return false;
};
// The oldest version the range allows: its first number ("^24.11.0 || ^26.0.0" -> 24.11.0).
const oldest = numbers(/\d+(\.\d+){0,2}/.exec(engines.node)[0]);
if (isOlder(numbers(process.versions.node), oldest)) {
  console.error(`live-visitors needs Node ${engines.node}; this is Node ${process.versions.node}.`);
  process.exit(1);
}
