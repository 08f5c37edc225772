/**
 * The local emulator of the realtime visitors service: a Fetch API handler, an HTTP server
 * around it, and its configuration. Node only; never shipped to browsers.
 */

export type { Cancel, Timers } from '../../src/contract/timers.js';
export { systemTimers } from '../../src/contract/timers.js';
export type { EmulatorConfig, Plan, WebsiteConfig } from './config.js';
export { DEFAULT_EMULATOR_CONFIG, HOURLY_REQUEST_LIMITS, loadEmulatorConfig, PLANS, parseEmulatorConfig } from './config.js';
export type { EmulatedWebsite, Emulator, EmulatorOptions, EmulatorState, EmulatorStats } from './emulator.js';
export { createEmulator } from './emulator.js';
export { CONTROL_PATH_PREFIX } from './endpoints/control.js';
export type { Fault, FaultKind, FaultState, ReportField } from './endpoints/fault-table.js';
export { FAULT_DESCRIPTIONS, FAULT_KINDS, parseFault, REPORT_FIELDS } from './endpoints/fault-table.js';
export type { TargetOptions, TrafficControl, TrafficState } from './endpoints/traffic.js';
export type { EmulatorServer, EmulatorServerOptions } from './server.js';
export { startEmulatorServer } from './server.js';
export type { SimulatedWebsite, TrafficSimulatorOptions, VisitBehaviour } from './traffic-simulator.js';
export { DEFAULT_VISIT_BEHAVIOUR, TrafficSimulator } from './traffic-simulator.js';
export { VISITOR_WINDOW_MS } from './visitor-window.js';
