/**
 * Browser UI that headless Chromium (156 here) still preloads: its omnibox popup, as two WebUI
 * pages in a renderer of their own that run script on every navigation. On a 2-core machine they
 * take turns on the CPU with the audited page's first parse, whose wall time the simulation
 * multiplies by 4 (docs/performance.md, PageSpeed). They are the browser's, not the page's: no page can make
 * them cheaper, and Puppeteer turns both off by default for automation (puppeteer/puppeteer#15278).
 */
const OMNIBOX_POPUP_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

const DISABLE_FEATURES = '--disable-features=';

/**
 * The Chromium flags for the Lighthouse bench, given chrome-launcher's defaults. Chromium reads a
 * repeated `--disable-features` as one list, the last, so the omnibox features are added to the
 * defaults' list (Translate, MediaRouter and the other background noise Lighthouse turns off)
 * rather than replacing it.
 */
export function lighthouseChromeFlags(defaultFlags: readonly string[]): string[] {
  const defaultsDisabled = defaultFlags.find((flag) => flag.startsWith(DISABLE_FEATURES))?.slice(DISABLE_FEATURES.length);
  const disabled = [...(defaultsDisabled ? defaultsDisabled.split(',') : []), ...OMNIBOX_POPUP_FEATURES];
  return [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    `${DISABLE_FEATURES}${[...new Set(disabled)].join(',')}`,
  ];
}
