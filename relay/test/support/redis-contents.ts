import { createClient } from 'redis';

/**
 * Everything a real Redis holds under `pattern` as one text, for scans that look for a secret in
 * any encoding: each key's name, its DUMP (the value as Redis keeps it, whatever its type) and, for
 * hashes and strings, the value as a client reads it.
 */
export async function redisContents(url: string, pattern: string): Promise<{ keys: string[]; text: string }> {
  const inspector = createClient({ url });
  inspector.on('error', () => {});
  await inspector.connect();
  try {
    const keys = await inspector.keys(pattern);
    let text = keys.join('\n');
    for (const key of keys) {
      const dumped = await inspector.sendCommand(['DUMP', key], { typeMapping: { 36: Buffer } } as never);
      text += `\n${Buffer.isBuffer(dumped) ? dumped.toString('latin1') : String(dumped)}`;
      const type = await inspector.type(key);
      if (type === 'hash') text += JSON.stringify(await inspector.hGetAll(key));
      if (type === 'string') text += await inspector.get(key);
    }
    return { keys, text };
  } finally {
    await inspector.close();
  }
}
