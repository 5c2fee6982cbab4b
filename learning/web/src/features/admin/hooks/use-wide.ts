import * as React from "react";

/** Tailwind's `sm` breakpoint: below it the admin tables drop columns and stack their cells. */
export const WIDE_QUERY = "(min-width: 640px)";

function subscribe(onChange: () => void): () => void {
  const list = window.matchMedia(WIDE_QUERY);
  list.addEventListener("change", onChange);
  return () => list.removeEventListener("change", onChange);
}

/** True from 640 px up; follows the viewport (rotation, resized window). */
export function useWide(): boolean {
  return React.useSyncExternalStore(
    subscribe,
    () => window.matchMedia(WIDE_QUERY).matches,
    () => true,
  );
}
