// The bundle without the holdout: every browser sees the sentence.
export type Variant = 'shown' | 'holdout';
export const variantFor = (_websiteId: string, _fraction: number): Variant => 'shown';
