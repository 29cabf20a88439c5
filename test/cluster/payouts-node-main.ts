/**
 * One platform node for the payouts failover test: the cluster node of support/cluster-node.ts
 * (main.ts's composition) with the test-only passport fixture mounted beside every real area.
 */
import { runClusterNode } from '../../support/cluster-node.ts';
import { payoutsFixtureArea } from './payouts-fixtures.ts';

await runClusterNode([payoutsFixtureArea]);
