import { cognito, IdentityError, type IdentitySettings, type Tokens } from './cognito';

/**
 * The signed-in holder's tokens. The access token lives in memory only; the refresh token is kept
 * in sessionStorage, so a reload of the tab stays signed in while closing the tab signs out and
 * other tabs and sites never see it (docs/decisions.md, "Console sessions").
 */
const REFRESH_KEY = 'vidgen.console.refresh';
/** Refresh this long before the access token expires, so no request leaves with a stale one. */
const REFRESH_MARGIN_MS = 60_000;

type Listener = (signedIn: boolean) => void;

export class Session {
  private accessToken: string | undefined;
  private expiresAt = 0;
  private refreshing: Promise<string | undefined> | undefined;
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly settings: IdentitySettings,
    private readonly storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> = window.sessionStorage,
  ) {}

  get signedIn(): boolean {
    return this.accessToken !== undefined || this.storage.getItem(REFRESH_KEY) !== null;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async signIn(email: string, password: string): Promise<void> {
    this.accept(await cognito.signIn(this.settings, email, password));
  }

  /** A valid access token, refreshed when close to expiry; undefined once the session has ended. */
  async token(): Promise<string | undefined> {
    if (this.accessToken && Date.now() < this.expiresAt - REFRESH_MARGIN_MS) return this.accessToken;
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  async signOut(): Promise<void> {
    const token = this.accessToken;
    this.forget();
    // Revokes the refresh token everywhere; the local state is gone whatever the answer.
    if (token) await cognito.globalSignOut(this.settings, token).catch(() => undefined);
  }

  /** Drops the tokens (the API refused them, or the holder signed out). */
  forget(): void {
    const was = this.signedIn;
    this.accessToken = undefined;
    this.expiresAt = 0;
    this.storage.removeItem(REFRESH_KEY);
    if (was) this.emit(false);
  }

  private async refresh(): Promise<string | undefined> {
    const refreshToken = this.storage.getItem(REFRESH_KEY);
    if (!refreshToken) return undefined;
    try {
      this.accept({ ...(await cognito.refresh(this.settings, refreshToken)), refreshToken });
      return this.accessToken;
    } catch (error) {
      // A revoked or expired refresh token ends the session; a network failure does not.
      if (error instanceof IdentityError && error.type !== 'NetworkError') this.forget();
      throw error;
    }
  }

  private accept(tokens: Tokens): void {
    const was = this.signedIn;
    this.accessToken = tokens.accessToken;
    this.expiresAt = Date.now() + tokens.expiresIn * 1000;
    if (tokens.refreshToken) this.storage.setItem(REFRESH_KEY, tokens.refreshToken);
    if (!was) this.emit(true);
  }

  private emit(signedIn: boolean): void {
    for (const listener of this.listeners) listener(signedIn);
  }
}
