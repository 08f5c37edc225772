import { CONTRACT_WINDOW_MINUTES } from './contract/report.js';
import { formatCountTime } from './count-time.js';
import { textsKey } from './locales/catalog.js';

/** What the explanation of a count says. */
export interface About {
  /** A built-in text, or the page's `disclosure-text`; `{time}` stands for when the count was collected. */
  template: string;
  /** A built-in text names the report's window; the page's own words are left as written. */
  builtIn: boolean;
  /** When the count was collected (the report's ISO 8601 `timestamp`). */
  timestamp: string;
  /** The minutes the count covers (the report's window, the contract's 3 unless it says otherwise). */
  windowMinutes: number;
  /** The explanation's language. */
  lang: string;
}

/** The explanation: `{time}` as the local time the count was collected, and a built-in text's window as the report's. */
export function formatAbout({ template, builtIn, timestamp, windowMinutes, lang }: About): string {
  const text = builtIn ? withWindow(template, windowMinutes, lang) : template;
  return text.split('{time}').join(formatCountTime(new Date(timestamp), lang));
}

/** A number of minutes in a language's own words and plural ("5 minutes", "5 Minuten"), by `Intl`: no translation of ours. */
function minutes(count: number, lang: string): string {
  return new Intl.NumberFormat(lang, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(count);
}

/**
 * Every built-in explanation names the contract's window as `Intl` writes "3 minutes" in its
 * language (test/locales.test.ts checks each): another window takes their place. The contract's
 * own window asks nothing of `Intl`, whose first use on a page is a long task on a phone. Where an
 * engine's `Intl` words differ from ours, the number alone changes, so it is never wrong.
 */
export function withWindow(text: string, windowMinutes: number, lang: string): string {
  if (windowMinutes === CONTRACT_WINDOW_MINUTES) return text;
  const language = textsKey(lang);
  const contractWindow = minutes(CONTRACT_WINDOW_MINUTES, language);
  return text.includes(contractWindow)
    ? text.replace(contractWindow, minutes(windowMinutes, language))
    : text.replace(String(CONTRACT_WINDOW_MINUTES), String(windowMinutes));
}
