/**
 * A stand-in command whose event loop is busy most of the time, as a loaded machine makes any
 * command's: it stops cleanly on SIGTERM once it gets to it. For command-launch.test.ts.
 */
process.on('SIGTERM', () => {
  console.log('stopped');
  process.exit(0);
});
console.log('ready');
setInterval(() => {
  const end = Date.now() + 200;
  while (Date.now() < end) {}
}, 10);
