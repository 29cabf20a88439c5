/** A chaos-bench node process: a cluster node with the bench's record area (bench/scenarios/chaos.ts). */
import { runClusterNode } from './cluster-node.ts';
import { recordArea } from './record-area.ts';

await runClusterNode([recordArea]);
