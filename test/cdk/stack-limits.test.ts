import { App, CfnWaitConditionHandle, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AREAS } from '#spec/function-spec';
import { synthesize, type Synthesized } from './support/cdk-app';
import { STACK_LIMITS, stackLimitProblems } from './support/stack-limits';

/** Every template a stage deploys: the stateful stack, the stateless root and its area stacks. */
function templatesOf(s: Synthesized): Map<string, Template> {
  return new Map([
    [s.stateful.stackName, s.statefulTemplate],
    [s.stateless.stackName, s.statelessTemplates.root],
    ...[...s.statelessTemplates.nested].map(([id, template]) => [`${s.stateless.stackName}/${id}`, template] as const),
  ]);
}

describe('stack limits', () => {
  it.each([
    ['dev', {}],
    ['prod', { stage: 'prod', alarmEmail: 'ops@example.com', mailFromAddress: 'invites@example.com' }],
  ])('keep every %s template within the limits, the functions in one nested stack per area', (_stage, context) => {
    const s = synthesize({ context });
    const templates = templatesOf(s);
    expect(stackLimitProblems(templates)).toEqual([]);
    expect(s.statelessTemplates.nested.size).toBe(AREAS.length);
    // The root holds the API, the queues and what is shared; every function of ours is in an area.
    const root = Object.values(s.statelessTemplates.root.toJSON().Resources as Record<string, { Type: string; Metadata?: Record<string, unknown> }>);
    expect(root.filter((r) => r.Type === 'AWS::Lambda::Function' && r.Metadata?.['vidgen:handler'])).toEqual([]);
    for (const [name, template] of templates) expect([name, Object.keys(template.toJSON().Resources).length <= 400]).toEqual([name, true]);
  });

  it('fail a template of 451 resources', () => {
    const stack = new Stack(new App(), 'Big');
    for (let i = 0; i < STACK_LIMITS.resources + 1; i += 1) new CfnWaitConditionHandle(stack, `Handle${i}`);
    expect(stackLimitProblems(new Map([['Big', Template.fromStack(stack)]]))).toEqual(['Big: 451 resources (at most 450)']);
  });
});
