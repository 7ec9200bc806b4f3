import '@mantine/core/styles.css';
import {
  Alert,
  Badge,
  NavLink,
  createTheme,
  MantineProvider,
  type CSSVariablesResolver,
} from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Router } from 'wouter';
import { setNonce } from 'get-nonce';
import { App } from './App';
import { SessionProvider } from './session';

// The style nonce the gateway put in this answer's page: Mantine's <style> elements carry it, so
// the Content-Security-Policy admits them and no other inline style.
const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';
// The scroll lock of Mantine's dialogs writes a <style> too, through get-nonce.
setNonce(nonce);

// Mantine's default blue button and dimmed text fall short of WCAG AA contrast (4.5:1) on white:
// the darker shades pass, which axe-core checks on every page in the browser tests.
// Text on the light tints of alerts, badges and the active link is black for the same reason.
// Transitions are left out for those who ask for less motion.
const theme = createTheme({
  primaryShade: 8,
  respectReducedMotion: true,
  components: {
    Alert: Alert.extend({
      vars: () => ({ root: { '--alert-color': 'var(--mantine-color-black)' } }),
    }),
    NavLink: NavLink.extend({
      vars: () => ({ root: { '--nl-color': 'var(--mantine-color-black)' }, children: {} }),
    }),
    Badge: Badge.extend({
      vars: () => ({ root: { '--badge-color': 'var(--mantine-color-black)' } }),
    }),
  },
});
const contrast: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
  dark: {},
});

const queries = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

const root = document.getElementById('root');
if (!root) throw new Error('the page has no #root');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={contrast} getStyleNonce={() => nonce}>
      <QueryClientProvider client={queries}>
        <SessionProvider>
          <Router base="/console">
            <App />
          </Router>
        </SessionProvider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
