import * as React from "react";

/** Below this width the layout is the phone one. */
export const MOBILE_BREAKPOINT = 768;

/** Viewport width, kept up to date (used for the 4/8 lesson carousel). */
export function useViewportWidth(): number {
  const [width, setWidth] = React.useState(() => (typeof window === "undefined" ? 1280 : window.innerWidth));
  React.useEffect(() => {
    const onResize = () => setWidth(window.innerWidth);
    window.addEventListener("resize", onResize);
    return () => window.removeEventListener("resize", onResize);
  }, []);
  return width;
}
