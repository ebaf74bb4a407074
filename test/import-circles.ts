import { circles, importGraph } from './import-graph.ts';

/**
 * Prints the import circles of the production tree: `node test/import-circles.ts [dir…]`
 * (default src harness bin connectors). Counts every edge (type-only too), then only the edges that run.
 */
const dirs = process.argv.length > 2 ? process.argv.slice(2) : ['src', 'harness', 'bin', 'connectors'];
const graph = importGraph(dirs);
const all = circles(graph);
const runtime = circles(graph, { typeOnly: false });
console.log(`files: ${graph.size}`);
console.log(`circles (all edges): ${all.length}, files in them: ${all.flat().length}`);
for (const circle of all) console.log(`  ${circle.length}: ${circle.join(' ')}`);
console.log(`circles (runtime edges only): ${runtime.length}, files in them: ${runtime.flat().length}`);
for (const circle of runtime) console.log(`  ${circle.length}: ${circle.join(' ')}`);
