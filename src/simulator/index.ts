// The terminal simulator: v2 and v3 PUSH devices over real HTTP, for tests, benchmarks and the CLI.

export { createSimulatedDevice } from './device.js';
export { runSimulation } from './simulation.js';
export type { SimulationOptions, SimulationSummary } from './simulation.js';
export { progressWriter, simulateCommand } from './cli.js';
export type { SimulateIo } from './cli.js';
export { parseSimulateArgs, SIMULATE_USAGE } from './cli-args.js';
export type { ParsedSimulateArgs, SimulateArgs } from './cli-args.js';
export { SimulatorError } from './sim-error.js';
export type { FaultSettings } from './failure-injection.js';
export type { SimulatorErrorCode } from './sim-error.js';
export type {
  CommandListener,
  DoorState,
  ExecutedCommand,
  SessionInfo,
  SimAttendance,
  SimPhoto,
  SimAuthorization,
  SimProtocol,
  SimTemplate,
  SimUser,
  SimulatedDevice,
  SimulatedDeviceOptions,
  SimulatedDeviceStats,
  TemplateTable,
} from './types.js';
