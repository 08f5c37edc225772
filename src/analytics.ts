import { dispatch, type LiveVisitorsImpressionDetail } from './events.js';

/**
 * Announces an impression: the element's event, and the same to Google Tag Manager when the page
 * has its `dataLayer`, so GA4 (or any tool fed by GTM) can compare the variants' conversions.
 */
export function reportImpression(host: HTMLElement, detail: LiveVisitorsImpressionDetail): void {
  dispatch(host, 'live-visitors-impression', detail);
  const { dataLayer } = globalThis as { dataLayer?: unknown };
  if (Array.isArray(dataLayer)) {
    dataLayer.push({
      event: 'live_visitors_impression',
      live_visitors_variant: detail.variant,
      live_visitors_count: detail.count,
      live_visitors_website: detail.websiteId,
      live_visitors_window_minutes: detail.windowMinutes,
    });
  }
}
