import { expect, it } from 'vitest';
import { blockingTimeAfterFirstPaint } from '../bench/lighthouse-blocking-time.js';

const PAGE = 'http://127.0.0.1:4000/offer/';
const task = (ts: number, dur: number, tdur: number, tid = 1) => ({ name: 'RunTask', pid: 7, tid, ts, dur, tdur });
const parse = (ts: number, url: string, tid = 1) => ({ name: 'ParseHTML', pid: 7, tid, ts, dur: 1_000, args: { beginData: { url } } });
const paint = (ts: number, tid = 1) => ({ name: 'firstContentfulPaint', pid: 7, tid, ts });

it("counts, from wall and from CPU time ×4, what the page's tasks after its first paint run beyond 50 ms", () => {
  const trace = [
    parse(0, PAGE),
    // Before the first paint: not counted, however long.
    task(100, 90_000, 90_000),
    paint(100_000),
    // 40 ms of wall time (160 ms simulated: 110 blocking) for 2 ms of CPU time (8 ms: none).
    task(200_000, 40_000, 2_000),
    // 20 ms of both: 80 ms simulated, 30 blocking each way.
    task(300_000, 20_000, 20_000),
    // 12.5 ms of wall time: exactly 50 ms simulated, nothing blocking.
    task(400_000, 12_500, 12_500),
    // Another thread's task: not the page's.
    task(500_000, 80_000, 80_000, 2),
  ];
  expect(blockingTimeAfterFirstPaint(trace, PAGE)).toEqual({ wall: 140, cpu: 30 });
});

it("reads the page's own thread: a first paint or parse elsewhere does not count", () => {
  const trace = [parse(0, 'about:blank'), paint(10, 1), parse(20, PAGE, 2), task(100, 40_000, 40_000, 1), task(200, 20_000, 20_000, 2)];
  expect(blockingTimeAfterFirstPaint(trace, PAGE)).toEqual({ wall: Number.NaN, cpu: Number.NaN });
  expect(blockingTimeAfterFirstPaint([...trace, paint(150, 2)], PAGE)).toEqual({ wall: 30, cpu: 30 });
});
