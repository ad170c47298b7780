import path from 'node:path';
import { PROJECT_ROOT } from '#packages/core/config.js';
import type { StaticSite } from '#packages/http/app.js';

/**
 * The merchant dashboard (apps/dashboard, docs/dashboard.md): built by `make build` into
 * apps/dashboard/dist and served at /dashboard. Its pages load only their own script and
 * stylesheet and talk only to this service's API, so the policy allows nothing else.
 */
export const DASHBOARD_CSP = ["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'", "connect-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join('; ');

export function dashboardSite(): StaticSite {
  return {
    mount: '/dashboard',
    dir: path.join(PROJECT_ROOT, 'apps/dashboard/dist'),
    headers: { 'Content-Security-Policy': DASHBOARD_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' },
    home: true,
  };
}

/**
 * The operator console (apps/dashboard/console, docs/console.md): built with the dashboard into
 * apps/dashboard/console/dist and served at /console, under the same policy.
 */
export function consoleSite(): StaticSite {
  return {
    mount: '/console',
    dir: path.join(PROJECT_ROOT, 'apps/dashboard/console/dist'),
    headers: { 'Content-Security-Policy': DASHBOARD_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' },
  };
}
