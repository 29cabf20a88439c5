/**
 * The operator socket: a Unix domain socket (mode 0600, so only the server's own user reaches it)
 * on which the running server accepts staff commands, one JSON line in, one JSON line out. It is
 * never exposed on the network; the public API has no way to issue clients or support entries.
 *
 * main.ts starts it: `await startOperatorSocket(platform, config.OPERATOR_SOCKET)`.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isApiError, logOf, type Platform } from '../kernel/index.ts';
import { runOperatorCommand, type OperatorCommand } from './commands.ts';

/** $OPERATOR_SOCKET, else one path per node on this machine (NODE_ID), shared by server and CLI. */
export const defaultOperatorSocket = (): string =>
  process.env.OPERATOR_SOCKET || join(tmpdir(), `workforce-operator${process.env.NODE_ID ? `-${process.env.NODE_ID}` : ''}.sock`);

const MAX_LINE = 64 * 1024;

export async function startOperatorSocket(platform: Platform, path = defaultOperatorSocket()): Promise<{ path: string; close(): Promise<void> }> {
  if (existsSync(path)) unlinkSync(path); // a stale socket from a previous run
  const server: Server = createServer((conn) => {
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => {
      buf += chunk;
      if (buf.length > MAX_LINE) return conn.destroy();
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const line = buf.slice(0, nl);
      buf = '';
      let cmd: OperatorCommand;
      try {
        cmd = JSON.parse(line) as OperatorCommand;
      } catch {
        conn.end(JSON.stringify({ ok: false, error: { code: 'invalid_request', message: 'not JSON' } }) + '\n');
        return;
      }
      // a staff command's answer acknowledges what it wrote: on disk first (gateway/pipeline.ts handle)
      runOperatorCommand(platform, cmd).then(async (result) => (platform.stores.flushed && (await platform.system.flushed()), result)).then(
        (result) => conn.end(JSON.stringify({ ok: true, result }) + '\n'),
        (e) => {
          if (!isApiError(e)) logOf('operator').error('fault', e);
          conn.end(JSON.stringify({ ok: false, error: isApiError(e) ? { code: e.code, message: e.message, validation: e.details?.validation } : { code: 'internal_error', message: 'fault; see server log' } }) + '\n');
        },
      );
    });
    conn.on('error', () => conn.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          if (existsSync(path)) unlinkSync(path);
          resolve();
        }),
      ),
  };
}
