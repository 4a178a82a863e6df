import type { Template } from 'aws-cdk-lib/assertions';

/**
 * CloudFormation refuses a template over 500 resources, 200 parameters or 200 outputs (and a
 * body over 1 MB from S3); synth only warns. These limits keep a margin, so a stack that grows
 * towards them fails a test long before a deploy fails (issue 33).
 */
export const STACK_LIMITS = { resources: 450, parameters: 180, outputs: 180, bytes: 900 * 1024 };
export type StackLimits = typeof STACK_LIMITS;

/** One line per template over a limit: "<name>: 451 resources (at most 450)". */
export function stackLimitProblems(templates: ReadonlyMap<string, Template>, limits: StackLimits = STACK_LIMITS): string[] {
  const problems: string[] = [];
  for (const [name, template] of templates) {
    const json = template.toJSON() as { Resources?: object; Parameters?: object; Outputs?: object };
    const counts = {
      resources: Object.keys(json.Resources ?? {}).length,
      parameters: Object.keys(json.Parameters ?? {}).length,
      outputs: Object.keys(json.Outputs ?? {}).length,
      bytes: Buffer.byteLength(JSON.stringify(json)),
    };
    for (const key of Object.keys(limits) as (keyof StackLimits)[]) {
      if (counts[key] > limits[key]) problems.push(`${name}: ${counts[key]} ${key} (at most ${limits[key]})`);
    }
  }
  return problems;
}
