import type { AuditEvent } from '#client';
import { actionsIn, actorLabel, auditCsv, detailsLine, matchesFilter } from '#console/audit';
import { csvText } from '#console/csv';

/** The Audit log page's pure helpers: its filters, its words and its CSV. */
const event = (fields: Partial<AuditEvent>): AuditEvent => ({
  id: 'aud_01M8EM6DZQNVPPS7K0AB4EEFEQ',
  at: '2026-11-27T10:00:00.000Z',
  actor: { type: 'holder', id: 'hld_1', email: 'Dev@Example.com' },
  action: 'key.created',
  target: { type: 'key', id: 'key_1' },
  ip: '203.0.113.7',
  user_agent: 'Mozilla/5.0',
  details: { name: 'ci', mode: 'live' },
  ...fields,
});

describe('the audit filters', () => {
  it('match an action exactly and who made it by any part of the email or id, any case', () => {
    const created = event({});
    const byOperator = event({ action: 'credits.granted', actor: { type: 'operator', id: 'operator', email: null } });
    expect([created, byOperator].filter((e) => matchesFilter(e, { action: 'key.created', actor: '' }))).toEqual([created]);
    expect([created, byOperator].filter((e) => matchesFilter(e, { action: '', actor: 'dev@example' }))).toEqual([created]);
    expect([created, byOperator].filter((e) => matchesFilter(e, { action: '', actor: ' OPERATOR ' }))).toEqual([byOperator]);
    expect([created, byOperator].filter((e) => matchesFilter(e, { action: 'key.created', actor: 'operator' }))).toEqual([]);
    expect(actionsIn([byOperator, created, event({})])).toEqual(['credits.granted', 'key.created']);
  });
});

describe('the audit words', () => {
  it('names the actor and says what changed', () => {
    expect(actorLabel({ type: 'holder', id: 'hld_1', email: 'a@b.c' })).toBe('a@b.c');
    expect(actorLabel({ type: 'operator', id: 'operator', email: null })).toBe('an operator');
    expect(actorLabel({ type: 'stripe', id: 'evt_1', email: null })).toBe('Stripe (evt_1)');
    expect(actorLabel({ type: 'key', id: 'key_9', email: null })).toBe('key key_9');
    expect(detailsLine({ scopes: { from: ['read'], to: ['read', 'generate'] }, monthly_spend_limit: { from: null, to: 50 }, name: 'ci' })).toBe(
      'scopes: read → read, generate; monthly_spend_limit: none → 50; name: ci',
    );
    expect(detailsLine({})).toBe('');
  });
});

describe('the audit CSV', () => {
  it("has the API's columns, details as JSON, quoted where needed, formulas neutralised", () => {
    const csv = auditCsv([event({ user_agent: '=HYPERLINK("x")', details: { name: 'a, b' } })]);
    const [header, row, end] = csv.split('\r\n');
    expect(header).toBe('id,at,actor_type,actor_id,actor_email,action,target_type,target_id,ip,user_agent,details');
    expect(row).toBe(`aud_01M8EM6DZQNVPPS7K0AB4EEFEQ,2026-11-27T10:00:00.000Z,holder,hld_1,Dev@Example.com,key.created,key,key_1,203.0.113.7,"'=HYPERLINK(""x"")","{""name"":""a, b""}"`);
    expect(end).toBe('');
    expect(csvText(['a'], [[null], [-5], ['-x']])).toBe("a\r\n\r\n-5\r\n'-x\r\n");
  });
});
