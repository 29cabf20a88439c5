/**
 * CPU measurement the benches share: this process's CPU-seconds spent by a piece of work, and a
 * CPU profile of it (written as <BENCH_CPU_PROF>/<name>.cpuprofile, for Chrome DevTools) when the
 * BENCH_CPU_PROF environment variable names a directory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

export const PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** The profiler's sampling interval in microseconds (BENCH_CPU_PROF_US; V8's default is 1000). */
const INTERVAL_US = Number(process.env.BENCH_CPU_PROF_US ?? 0);

async function startProfiler(session: Session): Promise<void> {
  await session.post('Profiler.enable');
  if (INTERVAL_US > 0) await session.post('Profiler.setSamplingInterval', { interval: INTERVAL_US });
  await session.post('Profiler.start');
}

/** CPU-seconds (this process) spent while `work` ran, and its result. */
export async function timedCpu<T>(work: () => Promise<T>): Promise<{ out: T; cpu: number }> {
  const before = process.cpuUsage();
  const out = await work();
  const d = process.cpuUsage(before);
  return { out, cpu: (d.user + d.system) / 1e6 };
}

/** Runs `work` under the inspector's CPU profiler when BENCH_CPU_PROF names a directory. */
export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return work();
  const session = new Session();
  session.connect();
  await startProfiler(session);
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(PROFILE_DIR, { recursive: true });
    writeFileSync(join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

/**
 * Starts the inspector's CPU profiler when BENCH_CPU_PROF names a directory; the returned function
 * stops it and writes <name>.cpuprofile (for work that starts and ends on different requests).
 */
export async function profiledStart(name: string): Promise<() => Promise<void>> {
  if (!PROFILE_DIR) return async () => {};
  const dir = PROFILE_DIR;
  const session = new Session();
  session.connect();
  await startProfiler(session);
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
