/**
 * The codes the local identity server "emails": it prints them on the stack's log
 * (`identity: verification code for <email>: 123456`), which a browser test captures.
 */
export type CodePurpose = 'verification' | 'password reset';

/** The latest code printed in `logged` for `email` and `purpose`, waiting up to 10 s for it. */
export async function codeFromLog(logged: readonly string[], email: string, purpose: CodePurpose): Promise<string> {
  return (await waitForCode(logged, email, purpose, 0)) ?? failNoCode(logged, email, purpose);
}

/** The codes printed for `email` and `purpose` so far, oldest first. */
export function codesInLog(logged: readonly string[], email: string, purpose: CodePurpose): string[] {
  const pattern = new RegExp(`${purpose} code for ${email.replace(/[.+]/g, '\\$&')}: (\\d{6})`);
  return logged.flatMap((line) => pattern.exec(line)?.[1] ?? []);
}

/** A code printed after the first `after` codes for `email` and `purpose` (a new one), waiting up to 10 s. */
export async function newCodeFromLog(logged: readonly string[], email: string, purpose: CodePurpose, after: number): Promise<string> {
  return (await waitForCode(logged, email, purpose, after)) ?? failNoCode(logged, email, purpose);
}

async function waitForCode(logged: readonly string[], email: string, purpose: CodePurpose, after: number): Promise<string | undefined> {
  for (let i = 0; i < 200; i += 1) {
    const codes = codesInLog(logged, email, purpose);
    if (codes.length > after) return codes.at(-1);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

function failNoCode(logged: readonly string[], email: string, purpose: CodePurpose): never {
  throw new Error(`No ${purpose} code for ${email} in the log:\n${logged.join('\n')}`);
}
