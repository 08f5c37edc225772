import type { LocaleTexts } from './locale-texts.js';

/** Thai. */
export default {
  other: 'ขณะนี้มี {count} คนกำลังเข้าชมร้านนี้',
  about: 'ผู้เข้าชมที่ไม่ซ้ำกันทั่วทั้งเว็บไซต์ในช่วง 3 นาทีที่ผ่านมา · อัปเดตเมื่อ {time}',
} satisfies LocaleTexts;
