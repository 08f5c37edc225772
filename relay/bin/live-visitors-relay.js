#!/usr/bin/env node
// The `live-visitors-relay` command: the Node check first, then the built command (dist/cli.js),
// or, in a checkout of the repository, its source through tsx, so `npx live-visitors-relay` works
// right after `npm install` with no build (the package ships dist/ and no src/).
import './require-node.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/cli.ts', import.meta.url);
if (existsSync(fileURLToPath(source))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli.js');
}
