import { expect, it } from 'vitest';
import { firstParseTask } from '../bench/first-parse-task.js';

const PAGE = 'http://127.0.0.1:4000/offer.html';
const task = (ts: number, dur: number, tdur: number, tid = 1) => ({ name: 'RunTask', pid: 7, tid, ts, dur, tdur });
const parse = (ts: number, dur: number, url: string, tid = 1) => ({
  name: 'ParseHTML',
  pid: 7,
  tid,
  ts,
  dur,
  args: { beginData: { url } },
});

it("reads the wall and CPU time of the task in which the page's parse began, not another page's or thread's", () => {
  const trace = [
    task(0, 3_000, 2_000),
    parse(100, 1_000, 'about:blank'),
    task(9_000, 50_000, 40_000, 2),
    task(10_000, 12_500, 3_200),
    parse(10_200, 9_000, PAGE),
    task(30_000, 4_000, 4_000),
    parse(30_100, 2_000, PAGE),
  ];
  expect(firstParseTask(trace, PAGE)).toEqual({ wall: 12.5, cpu: 3.2 });
});

it('gives NaN for both when the trace has no parse of the page, or no task around it', () => {
  expect(firstParseTask([task(0, 3_000, 2_000), parse(100, 1_000, 'about:blank')], PAGE)).toEqual({ wall: Number.NaN, cpu: Number.NaN });
  expect(firstParseTask([parse(100, 1_000, PAGE)], PAGE)).toEqual({ wall: Number.NaN, cpu: Number.NaN });
});
