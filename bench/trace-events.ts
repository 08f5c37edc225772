/** The fields of a Chromium trace event that the bench's readers of Lighthouse traces use. */
export interface TraceEvent {
  name: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { beginData?: { url?: string } };
}

/** The event in which `pageUrl`'s HTML parse began: its process and thread are the page's main thread. */
export function pageParse(traceEvents: TraceEvent[], pageUrl: string): TraceEvent | undefined {
  return traceEvents.find((event) => event.name === 'ParseHTML' && event.args?.beginData?.url === pageUrl);
}
