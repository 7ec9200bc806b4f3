import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the gateway under /console/; no inline script, so the Content-Security-Policy can
// forbid them (docs/console.md § Security).
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
