/**
 * The gateway bench's baseline (DESIGN "Bench"): a bare uWebSockets.js server, hello-world JSON on
 * GET and an echo on POST, with the same body handling as gateway/uws.ts and no pipeline. It loads
 * the package the gateway loads; the gateway's server, started in the same run, refuses the
 * package's Node.js fallback, so a run that compares the two is native on both sides.
 */
import { createRequire } from 'node:module';
import type * as UWS from 'uWebSockets.js';

const uws = createRequire(import.meta.url)('uWebSockets.js') as typeof UWS;

export function serveBare(host: string, port: number): Promise<{ port: number; close(): Promise<void> }> {
  const app = uws.App();
  const hello = JSON.stringify({ hello: 'world' });
  app.get('/*', (res) => {
    res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(hello);
  });
  app.post('/*', (res) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast && !aborted) {
        const body = Buffer.concat(chunks);
        res.cork(() => res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(body));
      }
    });
  });
  return new Promise((resolve, reject) => {
    app.listen(host, port, (ls) => {
      if (!ls) return reject(new Error(`bare: could not listen on ${port}`));
      resolve({ port: uws.us_socket_local_port(ls as unknown as UWS.us_socket), close: async () => uws.us_listen_socket_close(ls) });
    });
  });
}
