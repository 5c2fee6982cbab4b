import * as React from "react";
import { RefreshCwIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { EmptyState, PageContainer, PageSpinner } from "@/components/layout/page-states";
import { AdminGuard, AdminCourseCard, CourseForm, ConfirmDialog, useAdminCourses, useCourseRemoval } from "@/features/admin";
import { useDocumentTitle } from "@/lib/use-document-title";
import type { Course } from "@/types/db";

/** /admin/courses: create a course; list with refresh, view, edit and delete. */
export default function AdminCoursesRoute() {
  useDocumentTitle("Gestion des cours");
  return (
    <AdminGuard>
      <AdminCourses />
    </AdminGuard>
  );
}

function AdminCourses() {
  const { data: courses, refetch } = useAdminCourses();
  const remove = useCourseRemoval();
  const [toDelete, setToDelete] = React.useState<Course | null>(null);
  return (
    <PageContainer className="space-y-8">
      <h1 className="text-2xl font-bold sm:text-3xl">Gestion des cours</h1>
      <Card>
        <CardHeader>
          <CardTitle>Créer un cours</CardTitle>
          <CardDescription>Titre d'au moins 3 caractères, visibilité et image de couverture facultative.</CardDescription>
        </CardHeader>
        <CardContent>
          <CourseForm />
        </CardContent>
      </Card>
      <section aria-labelledby="courses-list-title" className="space-y-4">
        <div className="flex items-center justify-between gap-2">
          <h2 id="courses-list-title" className="text-xl font-semibold">Cours ({courses?.length ?? 0})</h2>
          <Button variant="outline" size="sm" onClick={() => void refetch()}>
            <RefreshCwIcon aria-hidden /> Actualiser
          </Button>
        </div>
        {!courses ? (
          <PageSpinner />
        ) : courses.length === 0 ? (
          <EmptyState title="Aucun cours disponible." />
        ) : (
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
            {courses.map((c) => (
              <AdminCourseCard key={c.id} course={c} isAdmin onDelete={setToDelete} />
            ))}
          </div>
        )}
      </section>
      {toDelete && (
        <ConfirmDialog
          open
          onOpenChange={(o) => !o && setToDelete(null)}
          title="Supprimer ce cours ?"
          description={`« ${toDelete.title} », ses contenus et leurs fichiers seront définitivement supprimés.`}
          confirmLabel="Supprimer"
          onConfirm={() => {
            const course = toDelete;
            setToDelete(null);
            void remove(course);
          }}
        />
      )}
    </PageContainer>
  );
}
