import { FAULT_DEFAULTS, type Fault } from './faults.js';
import type { RealtimeReport } from './realtime-report.js';
import { answer, errorAnswer, jsonAnswer } from './responses.js';
import { bearerChallenge, SPEC_MESSAGES } from './spec-messages.js';

const HTML = 'text/html; charset=utf-8';

/**
 * The answer a fault gives instead of the real one. `slow` and `hang` change only
 * *when* the answer comes, so the endpoint handles them and they never reach here.
 * `report` is what the real answer would have been, for the faults that spoil one field.
 */
export function faultAnswer(fault: Fault, report: RealtimeReport): Response {
  switch (fault.kind) {
    case 'server-error':
      return errorAnswer(500, 'Internal server error');
    case 'bad-gateway':
      return answer(502, htmlPage('502 Bad Gateway', 'The upstream server did not answer.'), HTML);
    case 'unavailable':
      return answer(503, htmlPage('503 Service Unavailable', 'We are down for maintenance. Please try again later.'), HTML);
    case 'reset':
      return answer(200, breakingOffBody(JSON.stringify(report)), 'application/json');
    case 'html':
      return answer(200, htmlPage('Live visitors', 'This is a web page, not the API.'), HTML);
    case 'invalid-json':
      return answer(200, JSON.stringify(report).slice(0, 24), 'application/json');
    case 'invalid-count':
      return jsonAnswer(200, { ...report, currentVisitors: valueOr(fault, FAULT_DEFAULTS.invalidCount) });
    case 'invalid-timestamp':
      return jsonAnswer(200, { ...report, timestamp: valueOr(fault, FAULT_DEFAULTS.invalidTimestamp) });
    case 'wrong-website':
      return jsonAnswer(200, { ...report, websiteId: valueOr(fault, FAULT_DEFAULTS.wrongWebsite) });
    case 'missing-field':
      return jsonAnswer(200, withoutField(report, fault.field ?? FAULT_DEFAULTS.missingField));
    case 'rate-limited': {
      const retryAfter = String(fault.retryAfterSeconds ?? FAULT_DEFAULTS.retryAfterSeconds);
      return errorAnswer(429, `Rate limit exceeded. Retry in ${retryAfter} seconds.`, { headers: { 'Retry-After': retryAfter } });
    }
    case 'rate-limited-no-retry-after':
      return errorAnswer(429, 'Rate limit exceeded.');
    case 'unauthorized':
      return errorAnswer(401, SPEC_MESSAGES.unauthorized, { headers: bearerChallenge(true) });
    case 'not-found':
      return errorAnswer(404, SPEC_MESSAGES.websiteNotFound);
    case 'bad-request':
      return errorAnswer(400, SPEC_MESSAGES.websiteIdRequired);
    case 'slow':
    case 'hang':
      throw new Error(`The ${fault.kind} fault delays the real answer; it has no answer of its own`);
  }
}

// `'value' in fault` rather than `??`: null is a wrong value worth sending on purpose.
function valueOr(fault: Fault, fallback: unknown): unknown {
  return 'value' in fault ? fault.value : fallback;
}

function withoutField(report: RealtimeReport, field: keyof RealtimeReport): Partial<RealtimeReport> {
  const copy: Partial<RealtimeReport> = { ...report };
  delete copy[field];
  return copy;
}

/** Sends the first half of `text`, then fails, so the connection is cut mid-body. */
function breakingOffBody(text: string): ReadableStream<Uint8Array> {
  const firstHalf = new TextEncoder().encode(text.slice(0, Math.ceil(text.length / 2)));
  let sent = false;
  return new ReadableStream({
    async pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(firstHalf);
        return;
      }
      // A macrotask later, so the status line and first half leave the socket before it is cut.
      await new Promise((resolve) => setTimeout(resolve, 0));
      controller.error(new Error('Connection reset by the emulator (reset fault)'));
    },
  });
}

function htmlPage(title: string, text: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body><h1>${title}</h1><p>${text}</p></body></html>\n`;
}
