/**
 * The page side of the Chromium test: runs the template's sandboxed code in the page, through the
 * same runner as in Node (sandbox.ts, permissions.ts, served as plain modules), with a host that
 * does what Tag Manager's runtime does in a page: the real `window`, and `injectScript` as an async
 * classic script added to the head. The tag (code, fields, permissions) comes in a JSON block.
 */
import { readPermissions } from './permissions.js';
import { runTemplate, type SandboxHost } from './sandbox.js';

interface TagBlock {
  readonly code: string;
  readonly fields: Record<string, unknown>;
  readonly permissions: unknown;
}

/** What the test reads back once the tag has settled. */
export interface PageRun {
  readonly outcome: 'success' | 'failure' | 'threw';
  readonly thrown: string | null;
  readonly apis: string[];
}

const host: SandboxHost = {
  window: globalThis as unknown as Record<string, unknown>,
  debugMode: true,
  addScript(url, onLoad, onError) {
    const script = document.createElement('script');
    script.async = true;
    script.src = url;
    script.addEventListener('load', onLoad, { once: true });
    script.addEventListener('error', onError, { once: true });
    document.head.append(script);
  },
  log(...values) {
    console.log(...values);
  },
  evaluate(code, bindings) {
    const names = Object.keys(bindings);
    new Function(...names, code)(...names.map((name) => bindings[name]));
  },
};

const tag = JSON.parse(document.getElementById('gtm-tag')?.textContent ?? '{}') as TagBlock;
const run = runTemplate({ code: tag.code, fields: tag.fields, permissions: readPermissions(tag.permissions), host });
const settled: Promise<PageRun> =
  run.thrown === undefined
    ? run.outcome.then((outcome) => ({ outcome, thrown: null, apis: run.calls.map((call) => call.api) }))
    : Promise.resolve({ outcome: 'threw', thrown: String(run.thrown), apis: run.calls.map((call) => call.api) });
(globalThis as { gtmTagRun?: Promise<PageRun> }).gtmTagRun = settled;
