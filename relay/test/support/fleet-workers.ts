/**
 * Miniflare workers for a fleet of relay isolates sharing one set of Durable Objects: the first
 * Worker holds the classes and the others bind to them, as further isolates of one script would.
 */
export function fleetWorkers(names: readonly string[], script: string, bindings: Record<string, string>) {
  return names.map((name, index) => {
    const scriptName = index === 0 ? {} : { scriptName: names[0] };
    return {
      name,
      modules: true,
      script,
      compatibilityDate: '2026-04-24',
      bindings,
      unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
      durableObjects: {
        RELAY_COORDINATOR: { className: 'RelayCoordinator', useSQLite: true, ...scriptName },
        REGISTRATIONS: { className: 'RegistrationKeeper', useSQLite: true, ...scriptName },
      },
    };
  });
}
