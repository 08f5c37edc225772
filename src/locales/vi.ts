import type { LocaleTexts } from './locale-texts.js';

/** Vietnamese. */
export default {
  other: 'Hiện có {count} người đang xem cửa hàng này',
  about: 'Số khách truy cập riêng biệt trên toàn bộ trang web trong 3 phút qua · cập nhật lúc {time}',
} satisfies LocaleTexts;
