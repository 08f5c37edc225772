import type { LocaleTexts } from './locale-texts.js';

/** Chinese (Simplified). */
export default {
  other: '当前有 {count} 人正在浏览本店',
  about: '过去3分钟内整个网站的独立访客数 · 更新于 {time}',
} satisfies LocaleTexts;
