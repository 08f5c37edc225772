import { describe, expect, it } from 'vitest';
import { runScenario, ScenarioAssertion } from './support/scenarios.js';
import { readTemplate } from './support/template-file.js';

const template = readTemplate();

describe("the template's own ___TESTS___ scenarios, run outside Tag Manager", () => {
  it.each(template.scenarios.map((scenario) => [scenario.name, scenario] as const))('%s', (_name, scenario) => {
    runScenario(template, scenario);
  });

  // The scenarios must be able to fail: each of these broken templates fails at least one.
  it.each([
    ['a failure path that never calls gtmOnFailure', (code: string) => code.replace('data.gtmOnFailure();', '')],
    ['no check of the selector', (code: string) => code.replace("if (selector === '') {", 'if (false) {')],
    ['the loader injected from another URL', (code: string) => code.replace('injectScript(scriptUrl,', "injectScript(scriptUrl + '?v=2',")],
    ['the position ignored', (code: string) => code.replace('position: position,', "position: 'after',")],
    [
      'success called before the loader loads',
      (code: string) => code.replace('injectScript(scriptUrl,', 'data.gtmOnSuccess(); injectScript(scriptUrl,'),
    ],
  ])('they catch a template with %s', (_name, breakIt) => {
    const broken = breakIt(template.code);
    expect(broken).not.toBe(template.code);
    expect(scenariosFailedBy(broken).length).toBeGreaterThan(0);
  });

  it('they catch a template in which any one path that fails the tag only logs, never calling gtmOnFailure', () => {
    const failCalls = [...template.code.matchAll(/\bfail\(/g)].map((match) => match.index);
    // The empty website ID, the empty selector, the position, the refused URL, the load failure.
    expect(failCalls.length).toBeGreaterThanOrEqual(5);
    for (const at of failCalls) {
      const broken = `${template.code.slice(0, at)}logToConsole(${template.code.slice(at + 'fail('.length)}`;
      expect(scenariosFailedBy(broken), template.code.slice(at, template.code.indexOf('\n', at))).not.toEqual([]);
    }
  });
});

/** The names of the scenarios that fail (by an assertion, not by a crash of the runner) on `code`. */
function scenariosFailedBy(code: string): string[] {
  return template.scenarios
    .filter((scenario) => {
      try {
        runScenario(template, scenario, code);
        return false;
      } catch (error) {
        return error instanceof ScenarioAssertion;
      }
    })
    .map((scenario) => scenario.name);
}
