import { Suspense } from "react";
import { Outlet, ScrollRestoration } from "react-router-dom";
import { Header } from "./header";
import { Footer } from "./footer";
import { PageSpinner } from "@/components/layout/page-states";
import { useDeviceSession } from "@/features/sessions";

export function RootLayout() {
  useDeviceSession();
  return (
    <div className="flex min-h-svh flex-col">
      <a href="#main" className="focus:bg-background sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:px-3 focus:py-2">
        Aller au contenu
      </a>
      <Header />
      <main id="main" className="flex flex-1 flex-col">
        <Suspense fallback={<PageSpinner />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
      <ScrollRestoration />
    </div>
  );
}
