/**
 * When a count was collected, as the disclosure writes it. A page's first `Intl.DateTimeFormat`
 * loads the engine's date data: about 40 ms in a fresh Chromium page on our 2-core test machine
 * (medians of 34 to 46), several times that on a phone, a long task on every first visit for a
 * text few people open. So until someone opens a disclosure on this page, the time is written in
 * 24-hour digits, which every language reads ("14:05"); from then on, in the language's own way
 * ("2:05 PM").
 */
let inOwnStyle = false;

/** From now on, times are written in each language's own way: someone is reading one. */
export function writeTimesInOwnStyle(): void {
  inOwnStyle = true;
}

/** Times in digits again, as on a new page: for tests. */
export function writeTimesInDigits(): void {
  inOwnStyle = false;
}

/** The local time (the page's time zone) of `at`. */
export function formatCountTime(at: Date, lang: string): string {
  if (inOwnStyle) return new Intl.DateTimeFormat(lang, { timeStyle: 'short' }).format(at);
  // "HH:mm:ss GMT…" in local time, by the language's own definition, with no Intl behind it (0.2 ms).
  return at.toTimeString().slice(0, 5);
}
