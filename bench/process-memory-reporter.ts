// Loaded into a relay process by the scale bench (`node --import`): on SIGUSR2 it prints the process's
// memory and CPU after a full GC, so the bench reads a separate process's heap without changing the relay.

process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  const { user, system } = process.cpuUsage();
  process.stderr.write(`bench-process ${JSON.stringify({ rss, heapUsed, cpuMicros: user + system })}\n`);
});
