import { Launcher } from 'chrome-launcher';
import { expect, it } from 'vitest';
import { lighthouseChromeFlags } from '../bench/lighthouse-chrome-flags.js';

const disabledFeatures = (flags: readonly string[]) =>
  flags.filter((flag) => flag.startsWith('--disable-features=')).map((flag) => flag.slice('--disable-features='.length).split(','));

it("adds the omnibox popup to chrome-launcher's disabled features instead of replacing them", () => {
  const defaults = Launcher.defaultFlags();
  const [ours, ...more] = disabledFeatures(lighthouseChromeFlags(defaults));
  expect(more).toEqual([]);
  // Whatever chrome-launcher turns off today (Translate, MediaRouter, RenderDocument…) stays off.
  for (const feature of disabledFeatures(defaults).flat()) expect(ours).toContain(feature);
  expect(ours).toEqual(expect.arrayContaining(['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']));
  expect(new Set(ours).size).toBe(ours!.length);
});

it('disables the omnibox popup when the defaults disable nothing, naming each feature once', () => {
  expect(disabledFeatures(lighthouseChromeFlags(['--no-first-run']))).toEqual([['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']]);
  expect(disabledFeatures(lighthouseChromeFlags(['--disable-features=WebUIOmniboxPopup']))).toEqual([
    ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'],
  ]);
});
