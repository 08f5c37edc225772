// Importing the package registers <live-visitors> (through define.js, the one module with a side effect).

export type { RealtimeReport } from './contract/report.js';
export { realtimeUrl } from './contract/request.js';
export { LiveVisitors, TAG_NAME } from './define.js';
export type {
  LiveVisitorsErrorDetail,
  LiveVisitorsErrorEvent,
  LiveVisitorsImpressionDetail,
  LiveVisitorsImpressionEvent,
  LiveVisitorsUpdateDetail,
  LiveVisitorsUpdateEvent,
} from './events.js';
export type { Variant } from './holdout.js';
export { fetchRealtimeReport, type RealtimeRequest } from './realtime/client.js';
export { RealtimeError, type RealtimeErrorKind } from './realtime/errors.js';
export type { WidgetState } from './view-state.js';
