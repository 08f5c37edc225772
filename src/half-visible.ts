/**
 * The browser's `onHalfVisible` (src/realtime/environment.ts): calls back whenever `element`
 * becomes at least half visible in the viewport or stops being so (never where the browser has no
 * IntersectionObserver); returns the unsubscribe function. Only impressions watch visibility, so
 * it ships in their lazy file rather than in the environment every page loads.
 */
export function observeHalfVisible(element: Element, listener: (halfVisible: boolean) => void): () => void {
  if (typeof IntersectionObserver === 'undefined') return () => {};
  const observer = new IntersectionObserver((entries) => listener(entries.at(-1)!.intersectionRatio >= 0.5), { threshold: 0.5 });
  observer.observe(element);
  return () => observer.disconnect();
}
