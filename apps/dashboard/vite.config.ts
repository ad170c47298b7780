import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the service at /dashboard (services/api/dashboard.ts); no inline script or style, so
// the page runs under a strict Content-Security-Policy.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0, modulePreload: { polyfill: false } },
});
