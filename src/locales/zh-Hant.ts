import type { LocaleTexts } from './locale-texts.js';

/** Chinese (Traditional). */
export default {
  other: '目前有 {count} 人正在瀏覽本店',
  about: '過去 3 分鐘內整個網站的不重複訪客數 · 更新於 {time}',
} satisfies LocaleTexts;
