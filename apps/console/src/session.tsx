import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { ConsoleLogin, ConsoleSessionInfo } from '@smsgw/contracts';
import { api, ApiError, setCsrfToken } from './api';

const SESSION_PATH = '/console/v1/session';

interface SessionState {
  /** undefined while it is read; null when there is none. */
  session: ConsoleSessionInfo | null | undefined;
  /** Why the session could not be read, when the gateway did not answer it (not a 401). */
  failure: Error | undefined;
  login: (login: ConsoleLogin) => Promise<void>;
  logout: () => Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<ConsoleSessionInfo | null | undefined>(undefined);
  const [failure, setFailure] = useState<Error>();
  const take = useCallback((s: ConsoleSessionInfo | null) => {
    setCsrfToken(s?.csrfToken);
    setSession(s);
  }, []);

  useEffect(() => {
    api<ConsoleSessionInfo>('GET', SESSION_PATH).then(take, (err: unknown) => {
      // No session is the login page; any other failure is said on it.
      if (!(err instanceof ApiError && err.status === 401))
        setFailure(err instanceof Error ? err : new Error(String(err)));
      take(null);
    });
  }, [take]);

  const login = useCallback(
    async (l: ConsoleLogin) => take(await api<ConsoleSessionInfo>('POST', SESSION_PATH, l)),
    [take],
  );
  const logout = useCallback(async () => {
    await api<void>('DELETE', SESSION_PATH);
    take(null);
  }, [take]);

  return (
    <SessionContext.Provider value={{ session, failure, login, logout }}>
      {children}
    </SessionContext.Provider>
  );
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

/** The logged-in session (the pages behind the login). */
export function useLoggedIn(): ConsoleSessionInfo {
  const { session } = useSession();
  if (!session) throw new Error('a page behind the login rendered without a session');
  return session;
}
