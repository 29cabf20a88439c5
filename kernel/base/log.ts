/**
 * The platform's log (docs/architecture.md "Logs"): structured JSON lines through pino, one line
 * an event, each with its time, level, area and what it is about (a request id, an organisation id,
 * a record); a fault carries its error with stack. On a terminal the same lines are shown as plain
 * text. A field that can hold a secret (a key, a password, a token, a signing secret, a credential
 * header) is written as "[redacted]" wherever it stands, so a log never carries one
 * (test/kernel/log.test.ts plants secrets and looks for them).
 *
 * LOG_LEVEL (trace, debug, info, warn, error, fatal, silent; default info) sets what is written.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

/** Field names that carry a secret somewhere in the platform (spec 5.2 keys, 6.2 signing secrets). */
export const SECRET_FIELDS = ['key', 'secret', 'secrets', 'password', 'token', 'access_token', 'refresh_token', 'client_secret', 'authorization', 'service-api-key', 'service-session', 'passcode'];

export interface Log {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  /** A fault: `err` is kept with its stack. */
  error(msg: string, err?: unknown, fields?: Record<string, unknown>): void;
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** The JSON lines as a person reads them: time, level, [area], message, the other fields, the stack. */
function plainText(out: NodeJS.WritableStream): DestinationStream {
  return {
    write(line: string) {
      const o = JSON.parse(line) as Record<string, unknown>;
      const { time, level, area, msg, err, pid: _pid, hostname: _host, ...rest } = o;
      const extra = Object.keys(rest).length ? ` ${Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')}` : '';
      const stack = err && typeof err === 'object' && 'stack' in err ? `\n${(err as { stack: string }).stack}` : '';
      out.write(`${String(time).slice(11, 23)} ${(LEVELS[level as number] ?? level).toString().padEnd(5)} [${area ?? 'platform'}] ${msg}${extra}${stack}\n`);
    },
  };
}

/** Where lines go: standard output, written before the call returns (a crash right after keeps them). */
export function createRootLog(out: NodeJS.WritableStream & { isTTY?: boolean; fd?: number } = process.stdout, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const destination = out.isTTY ? plainText(out) : out === process.stdout ? pino.destination({ fd: 1, sync: true }) : (out as unknown as DestinationStream);
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: SECRET_FIELDS.flatMap((f) => [`["${f}"]`, `*["${f}"]`, `*.*["${f}"]`]), censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
}

let root: Logger | undefined;

/** Replaces where every log writes (a test reads the lines). */
export function setRootLog(logger: Logger): void {
  root = logger;
  for (const [area, log] of areas) log.target = logger.child({ area });
}

class AreaLog implements Log {
  constructor(public target: Logger) {}
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.target.debug(fields ?? {}, msg);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.target.info(fields ?? {}, msg);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.target.warn(fields ?? {}, msg);
  }
  error(msg: string, err?: unknown, fields?: Record<string, unknown>): void {
    this.target.error({ ...fields, ...(err === undefined ? {} : { err: err instanceof Error ? err : new Error(String(err)) }) }, msg);
  }
}

const areas = new Map<string, AreaLog>();

/** The log of one area or layer (`runtime`, `gateway`, `payouts`, ...). */
export function logOf(area: string): Log {
  let log = areas.get(area);
  if (!log) areas.set(area, (log = new AreaLog((root ??= createRootLog()).child({ area }))));
  return log;
}
