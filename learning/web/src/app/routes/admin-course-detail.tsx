import { useParams } from "react-router-dom";
import { RefreshCwIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { PageContainer } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth";
import { AdminGuard, ContentForm, ContentEditSection, ContentList, BackButton, CourseStateView, useCourseContent } from "@/features/admin";
import { useDocumentTitle } from "@/lib/use-document-title";

/** /admin/courses/{id}: title, description, add-content form, content list, title edits. */
export default function AdminCourseDetailRoute() {
  useDocumentTitle("Détail du cours");
  return (
    <AdminGuard>
      <AdminCourseDetail />
    </AdminGuard>
  );
}

function AdminCourseDetail() {
  const { id } = useParams();
  const { user } = useAuth();
  const { state, items, viewed, reloadContent } = useCourseContent(id, user?.id ?? null);
  return (
    <CourseStateView state={state}>
      {(course) => (
        <PageContainer className="space-y-6">
          <BackButton />
          <div>
            <h1 className="text-2xl font-bold sm:text-3xl">{course.title}</h1>
            <p className="text-muted-foreground mt-2">{course.description || "Pas de description disponible."}</p>
          </div>
          <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,420px)_minmax(0,1fr)]">
            <Card className="h-fit">
              <CardHeader>
                <CardTitle>Ajouter du contenu</CardTitle>
              </CardHeader>
              <CardContent>
                <ContentForm courseId={course.id} existing={items} />
              </CardContent>
            </Card>
            <section className="min-w-0 space-y-3" aria-labelledby="detail-content-title">
              <div className="flex items-center justify-between gap-2">
                <h2 id="detail-content-title" className="text-lg font-semibold">Contenu ({items.length})</h2>
                <Button variant="outline" size="sm" onClick={() => void reloadContent()}>
                  <RefreshCwIcon aria-hidden /> Actualiser
                </Button>
              </div>
              <ContentList items={items} viewed={viewed} />
            </section>
          </div>
          <section className="space-y-3" aria-labelledby="edit-content-title">
            <h2 id="edit-content-title" className="text-lg font-semibold">Modifier les titres et descriptions</h2>
            <ContentEditSection items={items} />
          </section>
        </PageContainer>
      )}
    </CourseStateView>
  );
}
