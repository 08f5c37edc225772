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
    const failures = template.scenarios.filter((scenario) => {
      try {
        runScenario(template, scenario, broken);
        return false;
      } catch (error) {
        return error instanceof ScenarioAssertion;
      }
    });
    expect(failures.length).toBeGreaterThan(0);
  });
});
