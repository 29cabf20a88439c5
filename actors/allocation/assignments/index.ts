/**
 * The assignments family of the allocation area (spec 3 "Work orders, offers, assignments,
 * exceptions", 4.7): an accepted offer's assignment, its steps checked against the worker's
 * readings, its exceptions and its sealed proof. The area face (actors/allocation/index.ts)
 * re-exports what other families and areas may use.
 */
export { Assignment } from './assignment.ts';
export { assignmentIdOf } from './assignments.ts';
export { assignmentRoutes } from './routes.ts';
