import { runInNewContext } from 'node:vm';
import type { SandboxHost } from './sandbox.js';

export interface NodeHost extends SandboxHost {
  readonly window: Record<string, unknown>;
  /** Scripts asked for, in order, each with what to do when the test decides it loaded or failed. */
  readonly scripts: Array<{ url: string; load(): void; fail(): void }>;
  readonly logs: unknown[][];
}

/**
 * A page modelled as a plain object, for running template code in Node. The code is compiled in
 * a fresh V8 context, so it cannot reach this process's globals (`process`, `require` of Node)
 * even by accident; a script "loads" only when the test says so.
 */
export function nodeHost(options: { debugMode?: boolean; window?: Record<string, unknown> } = {}): NodeHost {
  const scripts: NodeHost['scripts'] = [];
  const logs: unknown[][] = [];
  return {
    window: options.window ?? {},
    debugMode: options.debugMode ?? true,
    scripts,
    logs,
    addScript(url, onLoad, onError) {
      scripts.push({ url, load: onLoad, fail: onError });
    },
    log(...values) {
      logs.push(values);
    },
    evaluate(code, bindings) {
      const names = Object.keys(bindings);
      const run = runInNewContext(`(function (${names.join(', ')}) {\n${code}\n})`, {}, { filename: 'template.tpl#sandboxed-js' }) as (
        ...args: unknown[]
      ) => void;
      run(...names.map((name) => bindings[name]));
    },
  };
}
