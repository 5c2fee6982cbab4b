import { Link } from "react-router-dom";
import { ShieldIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { EmptyState, PageContainer, PageSpinner } from "@/components/layout/page-states";
import { AdminGuard, UsersTab, BooksTab, SessionsTab, AdminCourseCard, useAdminCourses } from "@/features/admin";
import { useDocumentTitle } from "@/lib/use-document-title";

const TABS = [
  ["users", "Utilisateurs"],
  ["access", "Accès"],
  ["courses", "Cours"],
  ["books", "Livres"],
  ["sessions", "Sessions"],
] as const;

/** /admin: tabs Utilisateurs, Accès, Cours, Livres, Sessions. */
export default function AdminRoute() {
  useDocumentTitle("Administration");
  return (
    <AdminGuard>
      <PageContainer>
        <div className="mb-6 flex items-center gap-3">
          <ShieldIcon className="text-primary size-7" aria-hidden />
          <h1 className="text-2xl font-bold sm:text-3xl">Administration</h1>
        </div>
        <Tabs defaultValue="users">
          {/* One row on a phone: tighter tabs, and a sideways scroll of the bar alone if still too narrow. */}
          <TabsList className="max-w-full justify-start overflow-x-auto" data-testid="admin-tabs">
            {TABS.map(([value, label]) => (
              <TabsTrigger key={value} value={value} className="flex-none px-2 sm:px-3">
                {label}
              </TabsTrigger>
            ))}
          </TabsList>
          <TabsContent value="users" className="pt-3">
            <UsersTab />
          </TabsContent>
          <TabsContent value="access" className="pt-3">
            <EmptyState icon={<ShieldIcon className="size-8" aria-hidden />} title="Gestion des accès">
              <p className="text-sm">Choisissez un utilisateur dans l'onglet Utilisateurs, puis « Accès » dans ses actions.</p>
            </EmptyState>
          </TabsContent>
          <TabsContent value="courses" className="pt-3">
            <CoursesTab />
          </TabsContent>
          <TabsContent value="books" className="pt-3">
            <BooksTab />
          </TabsContent>
          <TabsContent value="sessions" className="pt-3">
            <SessionsTab />
          </TabsContent>
        </Tabs>
      </PageContainer>
    </AdminGuard>
  );
}

function CoursesTab() {
  const { data: courses } = useAdminCourses();
  return (
    <div className="space-y-4">
      <div className="flex justify-end">
        <Button asChild>
          <Link to="/admin/courses">Voir tous les cours</Link>
        </Button>
      </div>
      {!courses ? (
        <PageSpinner />
      ) : courses.length === 0 ? (
        <EmptyState title="Aucun cours disponible." />
      ) : (
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
          {courses.map((c) => (
            <AdminCourseCard key={c.id} course={c} isAdmin={false} />
          ))}
        </div>
      )}
    </div>
  );
}
