import * as React from "react";
import type { ResumableOptions, UploadProgress, UploadRetry } from "@/lib/resumable-upload";

export interface UploadTaskState {
  progress: UploadProgress;
  /** A network fault or server error is being retried. */
  retrying: boolean;
  /** The retry under way (which one of how many), until bytes go further than before it. */
  retry: UploadRetry | null;
  /** Every byte is stored; the bar stays a moment at 100 %. */
  done: boolean;
}

/** How long the full bar stays after a completed upload. */
const DONE_LINGER_MS = 600;

/**
 * The state of one upload at a time for a form: `start` gives the progress callbacks and the
 * cancel signal to pass to the upload, `cancel` aborts it, `finish` ends it. While an upload
 * runs, closing or reloading the tab asks first (the upload would resume on the next try).
 */
export function useUploadTask() {
  const [state, setState] = React.useState<UploadTaskState | null>(null);
  const controller = React.useRef<AbortController | null>(null);
  const linger = React.useRef<number | undefined>(undefined);
  const running = state !== null && !state.done;

  React.useEffect(() => () => window.clearTimeout(linger.current), []);
  React.useEffect(() => {
    if (!running) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", ask);
    return () => window.removeEventListener("beforeunload", ask);
  }, [running]);

  const start = React.useCallback((bytesTotal: number): ResumableOptions => {
    window.clearTimeout(linger.current);
    const abort = new AbortController();
    controller.current = abort;
    setState({ progress: { bytesSent: 0, bytesTotal, percent: 0 }, retrying: false, retry: null, done: false });
    // A retry sends its bytes again: it is said until they pass the furthest point reached.
    let furthest = 0;
    return {
      signal: abort.signal,
      onProgress: (progress) =>
        setState((s) => {
          if (!s || s.done) return s;
          const stillRetrying = s.retry !== null && progress.bytesSent <= furthest;
          furthest = Math.max(furthest, progress.bytesSent);
          return { ...s, progress, retrying: stillRetrying, retry: stillRetrying ? s.retry : null };
        }),
      onRetry: (retry) => setState((s) => (s && !s.done ? { ...s, retrying: true, retry } : s)),
    };
  }, []);

  const cancel = React.useCallback(() => controller.current?.abort(), []);

  /** Ends the upload: a success shows the full bar a moment, a failure clears it at once. */
  const finish = React.useCallback((success: boolean) => {
    controller.current = null;
    if (!success) {
      setState(null);
      return;
    }
    setState((s) => s && { ...s, done: true, retrying: false, retry: null, progress: { ...s.progress, bytesSent: s.progress.bytesTotal, percent: 100 } });
    linger.current = window.setTimeout(() => setState(null), DONE_LINGER_MS);
  }, []);

  return { state, running, start, cancel, finish };
}
