/**
 * `npm run operator -- <command> [--flag value ...]`: staff actions on a running server, sent over
 * its operator socket ($OPERATOR_SOCKET, default <tmpdir>/workforce-operator.sock).
 *
 *   issue-client   --org org_... --name "Payroll sync" --scopes "run:read run:write"
 *                  issue an OAuth client (spec 5.3); prints client id and secret (shown once)
 *   revoke-client  --org org_... --client client_...
 *   support-access --org org_... --action "GET /v1/payroll/runs/run_..." --purpose "ticket 4411" --staff "a.bello"
 *                  record a support-access entry (spec 2.2), listed at GET /v1/support_access
 */
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OperatorCommand } from './commands.ts';
import { defaultOperatorSocket } from './server.ts';

const USAGE = `usage: npm run operator -- <issue-client|revoke-client|support-access> --org org_... [flags]
  issue-client   --org --name --scopes "a:read b:write"
  revoke-client  --org --client
  support-access --org --action --purpose --staff
  (socket: $OPERATOR_SOCKET or ${defaultOperatorSocket()})`;

export function parseArgs(argv: string[]): OperatorCommand {
  const [op, ...rest] = argv;
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(rest[i]);
    if (!m) throw new Error(`unexpected argument ${rest[i]}\n${USAGE}`);
    flags[m[1]] = m[2] ?? rest[++i] ?? '';
  }
  switch (op) {
    case 'issue-client':
      return { op, org: flags.org, name: flags.name, scopes: (flags.scopes ?? '').split(/[\s,]+/).filter(Boolean) };
    case 'revoke-client':
      return { op, org: flags.org, client: flags.client };
    case 'support-access':
      return { op, org: flags.org, action: flags.action, purpose: flags.purpose, staff: flags.staff ?? process.env.USER ?? '' };
    default:
      throw new Error(USAGE);
  }
}

export function send(cmd: OperatorCommand, path = defaultOperatorSocket()): Promise<{ ok: boolean; result?: unknown; error?: unknown }> {
  return new Promise((done, reject) => {
    const sock = connect(path);
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('connect', () => sock.write(JSON.stringify(cmd) + '\n'));
    sock.on('data', (c: string) => (buf += c));
    sock.on('end', () => {
      try {
        done(JSON.parse(buf));
      } catch {
        reject(new Error(`operator socket answered: ${buf}`));
      }
    });
    sock.on('error', (e) => reject(new Error(`cannot reach the operator socket at ${path} (is the server running?): ${e.message}`)));
  });
}

async function main(): Promise<void> {
  let cmd: OperatorCommand;
  try {
    cmd = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error((e as Error).message);
    process.exitCode = 2;
    return;
  }
  const out = await send(cmd);
  console.log(JSON.stringify(out.ok ? out.result : out.error, null, 2));
  if (!out.ok) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((e) => {
    console.error((e as Error).message);
    process.exitCode = 1;
  });
}
