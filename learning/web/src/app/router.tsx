import { createBrowserRouter, type RouteObject } from "react-router-dom";
import { RootLayout } from "@/app/layout/root-layout";

// Every screen is its own lazy chunk; only the shell is in the initial bundle.
const lazy = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, "lazy"> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      { path: "/", ...lazy(() => import("./routes/home")) },
      { path: "/connexion", ...lazy(() => import("./routes/login")) },
      { path: "/inscription", ...lazy(() => import("./routes/register")) },
      { path: "/mot-de-passe-oublie", ...lazy(() => import("./routes/forgot-password")) },
      { path: "/livres", ...lazy(() => import("./routes/books")) },
      { path: "/cours", ...lazy(() => import("./routes/courses")) },
      { path: "/course/:courseId", ...lazy(() => import("./routes/course")) },
      { path: "/cours-detail/:id", ...lazy(() => import("./routes/course-detail")) },
      { path: "/video/:contentId", ...lazy(() => import("./routes/video")) },
      { path: "/compte", ...lazy(() => import("./routes/account")) },
      { path: "/messages", ...lazy(() => import("./routes/messages")) },
      { path: "/contact", ...lazy(() => import("./routes/contact")) },
      { path: "/mentions-legales", ...lazy(() => import("./routes/legal-notice")) },
      { path: "/politique-confidentialite", ...lazy(() => import("./routes/privacy")) },
      { path: "/admin", ...lazy(() => import("./routes/admin")) },
      { path: "/admin/courses", ...lazy(() => import("./routes/admin-courses")) },
      // Not shown in the spec: the current course management stands in for it.
      { path: "/admin/courses/old", ...lazy(() => import("./routes/admin-courses")) },
      { path: "/admin/courses/edit/:id", ...lazy(() => import("./routes/admin-course-edit")) },
      { path: "/admin/courses/:id", ...lazy(() => import("./routes/admin-course-detail")) },
      { path: "/admin/course/:courseId", ...lazy(() => import("./routes/admin-course")) },
      { path: "*", ...lazy(() => import("./routes/not-found")) },
    ],
  },
];

export const router = createBrowserRouter(routes);
