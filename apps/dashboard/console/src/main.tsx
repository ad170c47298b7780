import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../../src/styles.css';
import { App } from './App.js';
import './console.css';
import { sessionEnded } from './session.js';

// A query answered "session ended" (expired, signed out elsewhere, the operator deactivated) signs the console out.
let onEnded: () => void = () => undefined;
const queries = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
  queryCache: new QueryCache({ onError: (err) => sessionEnded(err) && onEnded() }),
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <App onSessionEnded={(listener) => (onEnded = listener)} />
    </QueryClientProvider>
  </StrictMode>,
);
