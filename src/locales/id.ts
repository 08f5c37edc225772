import type { LocaleTexts } from './locale-texts.js';

/** Indonesian. */
export default {
  other: '{count} orang sedang melihat-lihat toko ini sekarang',
  about: 'Pengunjung unik di seluruh situs dalam 3 menit terakhir · diperbarui pukul {time}',
} satisfies LocaleTexts;
