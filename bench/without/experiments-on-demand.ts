// The bundle without holdout and impressions (their file is never loaded): every browser sees the sentence, nothing watches the element.
export const UNDECIDED = 'undecided';
export const currentVariant = (_host: unknown) => 'shown' as const;
export const decidedVariant = async (_host: unknown) => 'shown' as const;
export const watchImpressions = (_host: unknown, _showing: () => boolean) => true;
