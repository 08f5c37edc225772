/**
 * One language's built-in texts. They say what the number is: people active on the whole site
 * (not on this product) within the last 3 minutes, which "right now" fairly sums up.
 * - one entry per CLDR plural category the language uses for whole numbers (`other` always),
 *   `{count}` standing for the formatted number;
 * - `about`: the disclosure, what the number is and when it was collected (`{time}`).
 */
export type LocaleTexts = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string; about: string };
