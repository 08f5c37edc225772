// The bundle without the impression event and the dataLayer hand-off.
export function reportImpression(..._args: unknown[]): void {}
