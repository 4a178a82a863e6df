import { useState, type FormEvent, type ReactNode } from 'react';
import { cognito, describeIdentityError } from '../auth/cognito';
import { useConsole } from '../context';
import { Link, navigate, useLocation } from '../router';

/** Sign in, sign up, the email code, and the password reset: Cognito's flows, one form each. */
export default function AuthPages({ path }: { path: string }) {
  switch (path) {
    case '/sign-up':
      return <SignUp />;
    case '/verify':
      return <Verify />;
    case '/forgot-password':
      return <ForgotPassword />;
    default:
      return <SignIn />;
  }
}

function useSubmit(action: () => Promise<void>) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    action()
      .catch((caught: unknown) => setError(describeIdentityError(caught)))
      .finally(() => setBusy(false));
  };
  /** Forgets the last error (another action made it out of date). */
  const clear = () => setError(undefined);
  return { error, busy, submit, clear };
}

/** The user pool's password policy, said where a password is chosen (sign-up and reset). */
const PASSWORD_RULES = 'at least 12 characters, with upper and lower case letters, a number and a symbol';

function AuthForm({ title, onSubmit, busy, error, submitLabel, children, footer }: {
  title: string;
  onSubmit: (event: FormEvent) => void;
  busy: boolean;
  error: string | undefined;
  submitLabel: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <section className="card">
      <h1>{title}</h1>
      <form className="stack" onSubmit={onSubmit} noValidate={false}>
        {children}
        {error && (
          <div className="notice error" role="alert">
            {error}
          </div>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : submitLabel}
        </button>
      </form>
      {footer && <div className="stack small form-footer">{footer}</div>}
    </section>
  );
}

const Email = ({ value, onChange }: { value: string; onChange: (value: string) => void }) => (
  <label>
    Email
    <input type="email" name="email" autoComplete="username" required value={value} onChange={(event) => onChange(event.target.value)} />
  </label>
);

function SignIn() {
  const { session, config } = useConsole();
  const { query } = useLocation();
  const [email, setEmail] = useState(query.get('email') ?? '');
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useSubmit(async () => {
    try {
      await session.signIn(email.trim(), password);
    } catch (caught) {
      if ((caught as { type?: string }).type !== 'UserNotConfirmedException') throw caught;
      // Signing in sends no code: send one, so the verify page can truthfully say a code is on its way.
      const sent = await cognito.resendCode({ endpoint: config.identityEndpoint, clientId: config.userPoolClientId }, email.trim()).then(
        () => true,
        () => false,
      );
      navigate(`/verify?email=${encodeURIComponent(email.trim())}&${sent ? 'resent' : 'unverified'}=1`);
    }
  });
  return (
    <AuthForm
      title="Sign in"
      onSubmit={submit}
      busy={busy}
      error={error}
      submitLabel="Sign in"
      footer={
        <>
          {query.get('verified') && <p className="notice ok">Your email is verified. Sign in to continue.</p>}
          {query.get('reset') && <p className="notice ok">Your password has been changed. Sign in with the new one.</p>}
          <Link to="/sign-up">Create an account</Link>
          <Link to="/forgot-password">Forgot your password?</Link>
        </>
      }
    >
      <Email value={email} onChange={setEmail} />
      <label>
        Password
        <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
      </label>
    </AuthForm>
  );
}

function SignUp() {
  const { config } = useConsole();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useSubmit(async () => {
    await cognito.signUp({ endpoint: config.identityEndpoint, clientId: config.userPoolClientId }, email.trim(), password);
    navigate(`/verify?email=${encodeURIComponent(email.trim())}`);
  });
  return (
    <AuthForm title="Create an account" onSubmit={submit} busy={busy} error={error} submitLabel="Create account" footer={<Link to="/sign-in">I already have an account</Link>}>
      <Email value={email} onChange={setEmail} />
      <label>
        Password <span className="hint">{PASSWORD_RULES}</span>
        <input type="password" name="new-password" autoComplete="new-password" required minLength={12} value={password} onChange={(event) => setPassword(event.target.value)} />
      </label>
    </AuthForm>
  );
}

function Verify() {
  const { config } = useConsole();
  const { query } = useLocation();
  const identity = { endpoint: config.identityEndpoint, clientId: config.userPoolClientId };
  const [email, setEmail] = useState(query.get('email') ?? '');
  const [code, setCode] = useState('');
  const [resent, setResent] = useState(false);
  const { error, busy, submit, clear } = useSubmit(async () => {
    setResent(false);
    await cognito.confirmSignUp(identity, email.trim(), code.trim());
    navigate(`/sign-in?verified=1&email=${encodeURIComponent(email.trim())}`);
  });
  const resend = useSubmit(async () => {
    await cognito.resendCode(identity, email.trim());
    // The new code makes the old code's error out of date.
    clear();
    setResent(true);
  });
  const intro = query.get('resent')
    ? 'Your email is not verified yet, so we sent a new code to it. Enter it here.'
    : query.get('unverified')
      ? 'Your email is not verified yet. Ask for a new code below, then enter it here.'
      : 'We sent a 6-digit code to your email. Enter it here.';
  return (
    <AuthForm
      title="Verify your email"
      onSubmit={submit}
      busy={busy}
      error={error ?? resend.error}
      submitLabel="Verify"
      footer={
        <>
          {resent && <p className="notice ok">A new code is on its way.</p>}
          <button type="button" className="secondary" onClick={resend.submit} disabled={resend.busy || !email}>
            Send a new code
          </button>
        </>
      }
    >
      <p className="muted">{intro}</p>
      <Email value={email} onChange={setEmail} />
      <label>
        Code
        <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required value={code} onChange={(event) => setCode(event.target.value)} />
      </label>
    </AuthForm>
  );
}

function ForgotPassword() {
  const { config } = useConsole();
  const identity = { endpoint: config.identityEndpoint, clientId: config.userPoolClientId };
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, submit } = useSubmit(async () => {
    if (!sent) {
      await cognito.forgotPassword(identity, email.trim());
      setSent(true);
      return;
    }
    await cognito.confirmForgotPassword(identity, email.trim(), code.trim(), password);
    navigate(`/sign-in?reset=1&email=${encodeURIComponent(email.trim())}`);
  });
  return (
    <AuthForm title="Reset your password" onSubmit={submit} busy={busy} error={error} submitLabel={sent ? 'Set new password' : 'Send reset code'} footer={<Link to="/sign-in">Back to sign in</Link>}>
      <Email value={email} onChange={setEmail} />
      {sent && (
        <>
          <p className="muted">If an account uses this email, we sent it a code.</p>
          <label>
            Code
            <input name="code" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(event) => setCode(event.target.value)} />
          </label>
          <label>
            New password <span className="hint">{PASSWORD_RULES}</span>
            <input type="password" name="new-password" autoComplete="new-password" required minLength={12} value={password} onChange={(event) => setPassword(event.target.value)} />
          </label>
        </>
      )}
    </AuthForm>
  );
}
