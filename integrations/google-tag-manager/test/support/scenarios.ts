import { nodeHost } from './node-host.js';
import { type ApiCall, runTemplate } from './sandbox.js';
import type { GtmTemplate, Scenario } from './template-file.js';

/** A failed `assertApi`, `assertThat` or `fail()` in a scenario. */
export class ScenarioAssertion extends Error {
  override name = 'ScenarioAssertion';
}

/**
 * Runs one `___TESTS___` scenario the way Tag Manager's test tab does: the setup code, then the
 * scenario's, with `mock`, `runCode`, `assertApi`, `assertThat` and `fail` in scope. `runCode(data)`
 * runs the template with exactly that `data` (plus `gtmOnSuccess`/`gtmOnFailure`); mocked APIs
 * skip the permission check, as the documentation says, and every other API checks it.
 * Only the assertions the template's scenarios use are implemented; another one throws.
 */
export function runScenario(template: GtmTemplate, scenario: Scenario, code = template.code): void {
  const mocks = new Map<string, (...args: unknown[]) => unknown>();
  const calls: ApiCall[] = [];
  const host = nodeHost();
  const callsOf = (api: string) => calls.filter((call) => call.api === api);

  const testApi = {
    mock(api: string, implementation: (...args: unknown[]) => unknown) {
      mocks.set(api, implementation);
    },
    runCode(fields: Record<string, unknown>) {
      const run = runTemplate({ code, fields, permissions: template.permissions, host, mocks });
      calls.push(...run.calls);
      if (run.thrown !== undefined) throw run.thrown;
    },
    assertApi(api: string) {
      const check = (holds: boolean, expectation: string) => {
        if (!holds) throw new ScenarioAssertion(`${api} ${expectation}; calls: ${JSON.stringify(callsOf(api).map((call) => call.args))}`);
      };
      return {
        wasCalled: () => check(callsOf(api).length > 0, 'was expected to be called'),
        wasNotCalled: () => check(callsOf(api).length === 0, 'was expected not to be called'),
        wasCalledWith: (...args: unknown[]) =>
          check(
            callsOf(api).some((call) => sameValue(call.args, args)),
            `was expected to be called with ${JSON.stringify(args)}`,
          ),
        wasNotCalledWith: (...args: unknown[]) =>
          check(!callsOf(api).some((call) => sameValue(call.args, args)), `was expected not to be called with ${JSON.stringify(args)}`),
      };
    },
    assertThat(actual: unknown, message?: string) {
      const check = (holds: boolean, expectation: string) => {
        if (!holds) throw new ScenarioAssertion(message ?? `${JSON.stringify(actual)} ${expectation}`);
      };
      return {
        isEqualTo: (expected: unknown) => check(sameValue(actual, expected), `is not equal to ${JSON.stringify(expected)}`),
        isNotEqualTo: (expected: unknown) => check(!sameValue(actual, expected), `is equal to ${JSON.stringify(expected)}`),
        isTrue: () => check(actual === true, 'is not true'),
        isFalse: () => check(actual === false, 'is not false'),
        isDefined: () => check(actual !== undefined, 'is undefined'),
        isUndefined: () => check(actual === undefined, 'is defined'),
      };
    },
    fail(message?: string) {
      throw new ScenarioAssertion(message ?? 'fail() was called');
    },
  };
  host.evaluate(`${template.setup}\n${scenario.code}`, testApi);
}

/** Deep equality of plain values, arrays and objects, across V8 contexts (whose prototypes differ). */
export function sameValue(left: unknown, right: unknown): boolean {
  if (Object.is(left, right)) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  if (leftKeys.length !== rightKeys.length) return false;
  return leftKeys.every(
    (key) => Object.hasOwn(right, key) && sameValue((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]),
  );
}
