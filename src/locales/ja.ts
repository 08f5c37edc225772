import type { LocaleTexts } from './locale-texts.js';

/** Japanese. */
export default {
  other: '現在{count}人がこのショップを閲覧しています',
  about: 'サイト全体の過去3分間のユニーク訪問者数 · {time}更新',
} satisfies LocaleTexts;
