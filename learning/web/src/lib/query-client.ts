import { QueryClient } from "@tanstack/react-query";

/** Server state cache for every screen: reads are fresh for 30 s, a failed read is retried once,
 *  and writes invalidate the keys they change (no hand-rolled loading state in components). */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
