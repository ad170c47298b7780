import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The operator console (console/, docs/console.md): a second application of this package, built
// beside the dashboard into console/dist and served by the service at /console. It shares the
// dashboard's design (styles, shell components, words) and, like it, no inline script or style.
export default defineConfig({
  root: 'console',
  base: '/console/',
  // The dashboard's favicon.
  publicDir: '../public',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0, modulePreload: { polyfill: false } },
});
