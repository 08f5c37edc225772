// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../src/emulator.js';
import { type SimulatedWebsite, TrafficSimulator } from '../src/traffic-simulator.js';
import { VisitorWindow } from '../src/visitor-window.js';
import { FakeTime } from './support/fake-time.js';
import { seededRandom } from './support/seeded-random.js';

const MINUTE = 60_000;

/** A simulator on one website, with a log of every pageview it made. */
function simulation(seed = 1) {
  const time = new FakeTime();
  const window = new VisitorWindow({ maxVisitors: 100_000 });
  const pageviews: string[] = [];
  const website: SimulatedWebsite = {
    recordPageview: (visitorId, atMs) => {
      pageviews.push(visitorId);
      window.record(visitorId, atMs, time.now());
    },
    currentVisitors: () => window.count(time.now()),
    forgetVisitor: (visitorId) => window.forget(visitorId),
  };
  const simulator = new TrafficSimulator({ website, now: time.now, random: seededRandom(seed), timers: time, visitorIdPrefix: 'sim-' });
  const countEveryMinute = (minutes: number) =>
    Array.from({ length: minutes }, () => {
      time.advance(MINUTE);
      return window.count(time.now());
    });
  return { time, simulator, pageviews, count: () => window.count(time.now()), countEveryMinute };
}

describe('TrafficSimulator', () => {
  it.each([1, 2, 3])('brings the count from 0 to around its target, then keeps it there (seed %i)', (seed) => {
    const { simulator, countEveryMinute } = simulation(seed);
    simulator.setTarget(40);
    simulator.start();
    const [first, second, ...settled] = countEveryMinute(20);
    expect(first).toBeGreaterThan(20);
    expect(second).toBeGreaterThan(30);
    for (const count of settled) expect(Math.abs(count - 40)).toBeLessThanOrEqual(10);
    // It moves like traffic, not a fixed number.
    expect(new Set(settled).size).toBeGreaterThan(3);
  });

  it('makes visitors browse several pages, counting each of them once', () => {
    const { simulator, pageviews, countEveryMinute } = simulation();
    simulator.setTarget(30);
    simulator.start();
    countEveryMinute(10);
    const visitors = new Set(pageviews).size;
    expect(pageviews.length).toBeGreaterThan(visitors * 2);
    expect(simulator.browsingVisitors).toBeGreaterThan(0);
  });

  it('follows a higher target within a few minutes', () => {
    const { simulator, countEveryMinute } = simulation();
    simulator.setTarget(20);
    simulator.start();
    countEveryMinute(10);
    simulator.setTarget(120);
    const counts = countEveryMinute(4);
    expect(counts[0]).toBeGreaterThan(60);
    expect(counts[3]).toBeGreaterThan(100);
  });

  it('follows a lower target as visitors leave and age out of the window', () => {
    const { simulator, count, countEveryMinute } = simulation();
    simulator.setTarget(120);
    simulator.start();
    countEveryMinute(15);
    const before = count();
    simulator.setTarget(20);
    const counts = countEveryMinute(12);
    expect(counts[2]).toBeLessThan(before * 0.75);
    for (const settled of counts.slice(8)) expect(settled).toBeLessThanOrEqual(30);
  });

  it('drains to zero with a target of 0', () => {
    const { simulator, countEveryMinute } = simulation();
    simulator.setTarget(50);
    simulator.start();
    countEveryMinute(10);
    simulator.setTarget(0);
    expect(countEveryMinute(15).slice(-3)).toEqual([0, 0, 0]);
  });

  it('jumps to its target at once when immediate, up and down', () => {
    const { simulator, count, countEveryMinute } = simulation();
    simulator.setTarget(35, { immediate: true });
    expect(count()).toBe(35);
    simulator.start();
    countEveryMinute(5);
    simulator.setTarget(10, { immediate: true });
    expect(count()).toBe(10);
    simulator.setTarget(0, { immediate: true });
    expect(count()).toBe(0);
  });

  it('stops: no more pageviews, no timer left, and the count ages out', () => {
    const { time, simulator, pageviews, count, countEveryMinute } = simulation();
    simulator.setTarget(30);
    simulator.start();
    simulator.start(); // a second start is harmless
    countEveryMinute(5);
    simulator.stop();
    const made = pageviews.length;
    expect(simulator.isRunning).toBe(false);
    expect(time.pendingTimers).toBe(0);
    time.advance(3 * MINUTE + 1);
    expect(pageviews.length).toBe(made);
    expect(count()).toBe(0);
    expect(simulator.browsingVisitors).toBe(0);
  });

  it('refuses a target that is not a whole number from 0 to 10000', () => {
    const { simulator } = simulation();
    for (const target of [-1, 1.5, 10_001, Number.NaN]) expect(() => simulator.setTarget(target)).toThrow(RangeError);
    expect(simulator.target).toBe(0);
  });
});

describe('traffic in the emulator', () => {
  it('runs one simulator per website from the simulate option', () => {
    const time = new FakeTime();
    const emulator = createEmulator({ now: time.now, timers: time, random: seededRandom(5), simulate: 25 });
    expect(emulator.traffic.state).toEqual({ running: true, targets: { 'demo-shop': 25, 'small-shop': 25 } });
    time.advance(10 * MINUTE);
    expect(emulator.currentVisitors('demo-shop')).toBeGreaterThan(15);
    expect(emulator.currentVisitors('small-shop')).toBeGreaterThan(15);
    emulator.traffic.setTarget(3, { websiteId: 'small-shop', immediate: true });
    expect(emulator.currentVisitors('small-shop')).toBe(3);
    expect(() => emulator.traffic.setTarget(3, { websiteId: 'no-such-shop' })).toThrow(RangeError);
    emulator.dispose();
    expect(emulator.traffic.isRunning).toBe(false);
    expect(time.pendingTimers).toBe(0);
  });

  it('keeps its own memory bounded over hours of traffic', () => {
    const time = new FakeTime();
    const emulator = createEmulator({ now: time.now, timers: time, random: seededRandom(9), simulate: 200 });
    for (let hour = 0; hour < 3; hour += 1) time.advance(60 * MINUTE);
    expect(emulator.stats().browsingSimulatedVisitors).toBeLessThan(2 * 200 * 2);
    expect(emulator.stats().trackedVisitors['demo-shop']).toBeLessThan(2 * 200);
    emulator.dispose();
  });
});

describe('the simulate option', () => {
  it('starts with the crowd already there, not a ramp from zero', () => {
    const time = new FakeTime();
    const emulator = createEmulator({ simulate: 25, now: time.now, timers: time, random: seededRandom(7) });
    try {
      expect(emulator.currentVisitors('demo-shop')).toBe(25);
      expect(emulator.currentVisitors('small-shop')).toBe(25);
    } finally {
      emulator.dispose();
    }
  });
});
