import type { LocaleTexts } from './locale-texts.js';

/** Hindi. */
export default {
  // `one` is 0 and 1 in Hindi.
  one: '{count} व्यक्ति अभी इस स्टोर को देख रहा है',
  other: '{count} लोग अभी इस स्टोर को देख रहे हैं',
  about: 'पिछले 3 मिनट में पूरी साइट पर आए यूनीक विज़िटर · अपडेट: {time}',
} satisfies LocaleTexts;
