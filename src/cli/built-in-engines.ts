/*
 * Kept only for the harness's imports (harness/routes/route-registry.ts and its test): the built-in
 * routes now live in engine-table.ts, beside the one list of engines. Import from there; this file
 * goes once nothing imports it.
 */
export { SOURCE_ENGINES, TARGET_ENGINES, runtimeRouteIds } from './engine-table.ts';
