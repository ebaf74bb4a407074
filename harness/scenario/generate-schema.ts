import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCENARIO_SCHEMA } from './scenario-schema.ts';

/** The committed schemas/scenario.v1.json: the scenario definition plus JSON Schema headers. */
export function scenarioJsonSchema(): string {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://dpone.example/schemas/scenario.v1.json',
    title: 'dpone certification scenario',
    ...SCENARIO_SCHEMA,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

export const SCHEMA_FILE = fileURLToPath(new URL('../../schemas/scenario.v1.json', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, scenarioJsonSchema());
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
