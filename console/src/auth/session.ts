import { cognito, IdentityError, type IdentitySettings, type Tokens } from './cognito';

/**
 * The signed-in holder's tokens. The access token lives in memory only; the refresh token is kept
 * in sessionStorage, so a reload of the tab stays signed in, and other sites never see it. A tab
 * opened from the console (a link in a new tab) has empty sessionStorage: it asks the open tabs
 * for the session over a same-origin BroadcastChannel, and signing out in one tab signs out every
 * one. Once the last tab is closed, the browser keeps nothing (docs/decisions.md, "Console
 * sessions" and issue 31).
 */
const REFRESH_KEY = 'vidgen.console.refresh';
/** Refresh this long before the access token expires, so no request leaves with a stale one. */
const REFRESH_MARGIN_MS = 60_000;
/** How long a new tab waits for an open one to hand it the session: open tabs answer within milliseconds. */
const RESTORE_WAIT_MS = 300;
/** The BroadcastChannel's name (main.tsx opens it). */
export const SESSION_CHANNEL = 'vidgen.console.session';

type Listener = (signedIn: boolean) => void;

/** What the console's tabs tell each other. */
export type SessionMessage = { type: 'ask' } | { type: 'share'; refreshToken: string } | { type: 'signed-out' };

/** The part of a BroadcastChannel a session uses. */
export interface SessionChannel {
  postMessage(message: SessionMessage): void;
  addEventListener(type: 'message', listener: (event: { data: SessionMessage }) => void): void;
}

/** The part of sessionStorage a session uses. */
export interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export class Session {
  private accessToken: string | undefined;
  private expiresAt = 0;
  private refreshing: Promise<string | undefined> | undefined;
  private readonly listeners = new Set<Listener>();
  /** Set while this tab asks the others for the session. */
  private onShared: ((refreshToken: string) => void) | undefined;

  /** `storage`: the tab's sessionStorage; `channel`: a BroadcastChannel named SESSION_CHANNEL (none: this tab alone). */
  constructor(
    private readonly settings: IdentitySettings,
    private readonly storage: TokenStorage,
    private readonly channel?: SessionChannel,
  ) {
    channel?.addEventListener('message', (event) => this.hear(event.data));
  }

  /**
   * A tab without a session of its own asks the open tabs for theirs, waiting at most `waitMs`;
   * true when the tab is signed in after it.
   */
  async restore(waitMs = RESTORE_WAIT_MS): Promise<boolean> {
    if (this.signedIn || !this.channel) return this.signedIn;
    const shared = await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), waitMs);
      this.onShared = (refreshToken) => {
        clearTimeout(timer);
        resolve(refreshToken);
      };
      this.channel!.postMessage({ type: 'ask' });
    });
    this.onShared = undefined;
    if (shared && !this.signedIn) {
      this.storage.setItem(REFRESH_KEY, shared);
      this.emit(true);
    }
    return this.signedIn;
  }

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

  /**
   * A new access token now, whatever the current one's expiry. The API reads a holder's accounts
   * once per token (its authorizer's cache): after joining an account, a new token acts there at once.
   */
  async renew(): Promise<string | undefined> {
    this.expiresAt = 0;
    return this.token();
  }

  async signOut(): Promise<void> {
    const token = this.accessToken;
    this.forget();
    this.channel?.postMessage({ type: 'signed-out' });
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

  private hear(message: SessionMessage): void {
    if (message.type === 'ask') {
      const refreshToken = this.storage.getItem(REFRESH_KEY);
      if (refreshToken) this.channel?.postMessage({ type: 'share', refreshToken });
    } else if (message.type === 'share') {
      // Taken only while asking: a tab signed out on purpose stays signed out.
      this.onShared?.(message.refreshToken);
    } else if (message.type === 'signed-out') {
      this.forget();
    }
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
