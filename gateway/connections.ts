/**
 * How many TCP connections this process holds open on one local port, as the kernel sees them.
 *
 * Why the kernel: uWebSockets.js tells JavaScript nothing about an HTTP connection between two
 * requests (no open or close event, no handle), so a graceful close (uws.ts) cannot otherwise know
 * whether a keep-alive connection is still open and may yet carry a request. Linux lists every
 * socket of the network namespace in /proc/self/net/tcp{,6} with its inode; the ones this process
 * holds are the `socket:[inode]` links in /proc/self/fd (another process may listen on the same
 * port with SO_REUSEPORT during a rolling restart: its connections are not ours).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const TABLES = ['/proc/self/net/tcp', '/proc/self/net/tcp6'];
const LISTEN = '0A';

/** Open connections on `port` held by this process; undefined where /proc cannot say (not Linux). */
export function openConnections(port: number): number | undefined {
  let ours: Set<string>;
  try {
    ours = socketInodes();
  } catch {
    return undefined;
  }
  let n = 0;
  let read = false;
  for (const table of TABLES) {
    let text: string;
    try {
      text = readFileSync(table, 'latin1');
    } catch {
      continue; // no IPv6 in this namespace
    }
    read = true;
    const lines = text.split('\n');
    for (let i = 1; i < lines.length; i++) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
      const f = lines[i].trim().split(/\s+/);
      if (f.length < 10 || f[3] === LISTEN) continue;
      const local = f[1];
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && ours.has(f[9])) n++;
    }
  }
  return read ? n : undefined;
}

function socketInodes(): Set<string> {
  const out = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    let link: string;
    try {
      link = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed since the listing
    }
    if (link.startsWith('socket:[')) out.add(link.slice(8, -1));
  }
  return out;
}

/** How often a graceful close asks the kernel whether connections are still open. */
const CENSUS_MS = 20;

/**
 * Resolves when nothing is in flight and no connection is open on `port`, looking every
 * CENSUS_MS, or when the grace period ends. Where the kernel cannot be asked (not Linux), idle
 * keep-alive connections are invisible: it resolves once nothing is in flight and no WebSocket is
 * open.
 */
export function drained(inflight: () => number, websockets: () => number, port: number, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    let look: NodeJS.Timeout | undefined;
    const grace = setTimeout(() => {
      clearTimeout(look);
      resolve();
    }, graceMs);
    const check = () => {
      if (inflight() === 0 && (openConnections(port) ?? websockets()) === 0) {
        clearTimeout(grace);
        resolve();
      } else {
        look = setTimeout(check, CENSUS_MS);
      }
    };
    check();
  });
}
