/** The success body of `GET /api/v1/realtime` (spec part 2). */
export interface RealtimeReport {
  readonly currentVisitors: number;
  readonly websiteId: string;
  /** `YYYY-MM-DDTHH:MM:SS.mmmZ`, the time the count was taken. */
  readonly timestamp: string;
}

export function realtimeReport(currentVisitors: number, websiteId: string, nowMs: number): RealtimeReport {
  return { currentVisitors, websiteId, timestamp: new Date(nowMs).toISOString() };
}
