import type { LocaleTexts } from './locale-texts.js';

/** Korean. */
export default {
  other: '지금 {count}명이 이 쇼핑몰을 둘러보고 있습니다',
  about: '최근 3분 동안 사이트 전체의 순 방문자 수 · {time} 업데이트',
} satisfies LocaleTexts;
