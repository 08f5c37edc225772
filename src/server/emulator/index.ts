/**
 * The local emulator of the realtime visitors service: a Fetch API handler,
 * an HTTP server around it, and its configuration. Node only; never shipped to browsers.
 */
export { createEmulator } from './emulator.js';
export type { Emulator, EmulatorOptions, EmulatorState, EmulatorStats, WebsiteState } from './emulator.js';
export { startEmulatorServer } from './server.js';
export type { EmulatorServer, EmulatorServerOptions } from './server.js';
export {
  DEFAULT_EMULATOR_CONFIG,
  EmulatorConfigError,
  HOURLY_REQUEST_LIMITS,
  PLANS,
  parseEmulatorConfig,
} from './config.js';
export type { EmulatorConfig, Plan, WebsiteConfig } from './config.js';
export { loadEmulatorConfig } from './load-config.js';
export { FAULT_DESCRIPTIONS, FAULT_KINDS, REPORT_FIELDS, parseFault } from './faults.js';
export type { Fault, FaultKind, ReportField } from './faults.js';
export type { FaultState } from './fault-switch.js';
export { CONTROL_PATH_PREFIX } from './control-endpoints.js';
export type { TrafficControl, TrafficState, TargetOptions } from './traffic-control.js';
export { DEFAULT_VISIT_BEHAVIOUR, TrafficSimulator } from './traffic-simulator.js';
export type { SimulatedWebsite, VisitBehaviour, TrafficSimulatorOptions } from './traffic-simulator.js';
export { systemTimers } from './timers.js';
export type { Cancel, Timers } from './timers.js';
export { VISITOR_WINDOW_MS } from './visitor-window.js';
export { RATE_WINDOW_MS } from './rate-limiter.js';
export type { RealtimeReport } from './realtime-report.js';
