/**
 * One platform node for the failover test: the cluster node of support/cluster-node.ts
 * (main.ts's composition) with the test-only tally area mounted beside every real area.
 */
import { runClusterNode } from '../../support/cluster-node.ts';
import { tallyArea } from './tally.ts';

await runClusterNode([tallyArea]);
