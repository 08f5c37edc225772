// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../src/emulator.js';
import { VisitorWindow } from '../src/visitor-window.js';
import { FakeTime } from './support/fake-time.js';

const WINDOW_MS = 3 * 60_000;
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0, 0);

describe('VisitorWindow', () => {
  it('counts a visitor whose latest pageview is at most three minutes old', () => {
    const window = new VisitorWindow({ maxVisitors: 10 });
    window.record('a', T0, T0);
    window.record('b', T0 + 500, T0 + 500);
    expect(window.count(T0 + WINDOW_MS)).toBe(2);
    expect(window.count(T0 + WINDOW_MS + 1)).toBe(1); // a leaves, b (half a second younger) stays
    expect(window.count(T0 + WINDOW_MS + 501)).toBe(0);
  });

  it('ignores a pageview that is already outside the window', () => {
    const window = new VisitorWindow({ maxVisitors: 10 });
    window.record('a', T0 - WINDOW_MS - 1, T0);
    expect(window.trackedVisitors).toBe(0);
  });

  it('keeps the latest pageview when an older one arrives late', () => {
    const window = new VisitorWindow({ maxVisitors: 10 });
    window.record('a', T0, T0);
    window.record('a', T0 - 60_000, T0);
    expect(window.count(T0 + WINDOW_MS)).toBe(1);
  });

  it('forgets a visitor on request', () => {
    const window = new VisitorWindow({ maxVisitors: 10 });
    window.record('a', T0, T0);
    window.record('b', T0, T0);
    window.forget('a');
    window.forget('never-seen');
    expect(window.count(T0)).toBe(1);
  });

  it('evicts the least recently seen visitors beyond its cap', () => {
    const window = new VisitorWindow({ maxVisitors: 1_000 });
    for (let visitor = 0; visitor < 5_000; visitor += 1) window.record(`v${visitor}`, T0 + visitor * 10, T0 + visitor * 10);
    const nowMs = T0 + 5_000 * 10;
    expect(window.trackedVisitors).toBe(1_000);
    expect(window.count(nowMs)).toBe(1_000);
    window.record('v0', nowMs, nowMs); // an evicted visitor coming back counts again
    expect(window.count(nowMs)).toBe(1_000);
    window.record('v4999', nowMs, nowMs); // a kept one refreshing does not grow the set
    expect(window.trackedVisitors).toBe(1_000);
  });
});

describe('memory stays bounded under any number of visitors', () => {
  it('holds 100,000 visitors, then lets go of all of them once they are older than the window', () => {
    const time = new FakeTime();
    const emulator = createEmulator({ now: time.now, timers: time });
    for (let visitor = 0; visitor < 100_000; visitor += 1) {
      emulator.recordPageview('demo-shop', `visitor-${visitor}`);
      if (visitor % 1_000 === 0) time.advance(1_000);
    }
    expect(emulator.currentVisitors('demo-shop')).toBe(100_000);
    expect(emulator.stats().trackedVisitors['demo-shop']).toBe(100_000);

    time.advance(WINDOW_MS - 50_000);
    const halfGone = emulator.currentVisitors('demo-shop');
    expect(halfGone).toBeLessThan(100_000);
    expect(emulator.stats().trackedVisitors['demo-shop']).toBeLessThan(100_000);

    time.advance(WINDOW_MS);
    expect(emulator.currentVisitors('demo-shop')).toBe(0);
    expect(emulator.stats().trackedVisitors['demo-shop']).toBe(0);
  });

  it('caps each website at maxVisitorsPerWebsite however fast visitors come', () => {
    const time = new FakeTime();
    const emulator = createEmulator({ now: time.now, timers: time, maxVisitorsPerWebsite: 2_000 });
    for (let visitor = 0; visitor < 20_000; visitor += 1) emulator.recordPageview('demo-shop', `visitor-${visitor}`);
    expect(emulator.stats().trackedVisitors['demo-shop']).toBe(2_000);
    expect(emulator.currentVisitors('demo-shop')).toBe(2_000);
  });

  it('prunes on writes too, so a site nobody reads does not grow', () => {
    const time = new FakeTime();
    const emulator = createEmulator({ now: time.now, timers: time });
    for (let minute = 0; minute < 30; minute += 1) {
      for (let visitor = 0; visitor < 1_000; visitor += 1) emulator.recordPageview('small-shop', `m${minute}-v${visitor}`);
      time.advance(60_000);
    }
    // Only about four minutes' worth (the window plus the second being pruned) is held.
    expect(emulator.stats().trackedVisitors['small-shop']).toBeLessThanOrEqual(4_000);
  });
});

describe('recordPageview in code', () => {
  it('refuses an unknown website and a future time', () => {
    const time = new FakeTime();
    const emulator = createEmulator({ now: time.now, timers: time });
    expect(() => emulator.recordPageview('no-such-shop', 'v')).toThrow(RangeError);
    expect(() => emulator.recordPageview('demo-shop', 'v', time.now() + 1)).toThrow('A pageview cannot be in the future');
    expect(() => emulator.currentVisitors('no-such-shop')).toThrow(RangeError);
  });
});
