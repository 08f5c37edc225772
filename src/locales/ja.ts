import type { LocaleTexts } from './locale-texts.js';

/** Japanese. */
export default {
  other: '現在{count}人がこのショップを閲覧しています',
  about: 'サイト全体のユニーク訪問者数（過去 3 分） · {time}更新',
} satisfies LocaleTexts;
