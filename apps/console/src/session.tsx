import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import type { ConsoleLogin, ConsoleSessionInfo } from '@smsgw/contracts';
import { api, ApiError, setCsrfToken } from './api';

const SESSION_PATH = '/console/v1/session';

interface SessionState {
  /** undefined while it is read; null when there is none. */
  session: ConsoleSessionInfo | null | undefined;
  login: (login: ConsoleLogin) => Promise<void>;
  logout: () => Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<ConsoleSessionInfo | null | undefined>(undefined);
  const take = useCallback((s: ConsoleSessionInfo | null) => {
    setCsrfToken(s?.csrfToken);
    setSession(s);
  }, []);

  useEffect(() => {
    api<ConsoleSessionInfo>('GET', SESSION_PATH).then(take, (err: unknown) => {
      if (err instanceof ApiError && err.status === 401) take(null);
      else throw err;
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
    <SessionContext.Provider value={{ session, login, logout }}>{children}</SessionContext.Provider>
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
