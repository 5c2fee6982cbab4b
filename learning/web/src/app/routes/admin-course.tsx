import { Link, useParams } from "react-router-dom";
import { RefreshCwIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { PageContainer } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth";
import { VisibilityBadge } from "@/features/courses";
import { AdminGuard, ContentForm, ContentList, ScheduleEditor, BackButton, CourseStateView, useCourseContent } from "@/features/admin";
import { useDocumentTitle } from "@/lib/use-document-title";

/** /admin/course/{courseId}: tabs content, unlock schedule and settings. */
export default function AdminCourseRoute() {
  useDocumentTitle("Cours (admin)");
  return (
    <AdminGuard>
      <AdminCourse />
    </AdminGuard>
  );
}

function AdminCourse() {
  const { courseId } = useParams();
  const { user } = useAuth();
  const { state, items, viewed, reloadContent } = useCourseContent(courseId, user?.id ?? null);
  return (
    <CourseStateView state={state}>
      {(course) => (
        <PageContainer className="space-y-6">
          <BackButton />
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-2xl font-bold sm:text-3xl">{course.title}</h1>
            <VisibilityBadge visibility={course.visibility} wording="privacy" />
          </div>
          <Tabs defaultValue="content">
            <TabsList>
              <TabsTrigger value="content">Contenu</TabsTrigger>
              <TabsTrigger value="unlock">Déblocage</TabsTrigger>
              <TabsTrigger value="settings">Paramètres</TabsTrigger>
            </TabsList>
            <TabsContent value="content" className="grid grid-cols-1 gap-6 pt-3 lg:grid-cols-[minmax(0,420px)_minmax(0,1fr)]">
              <Card className="h-fit">
                <CardHeader>
                  <CardTitle>Ajouter du contenu</CardTitle>
                </CardHeader>
                <CardContent>
                  <ContentForm courseId={course.id} existing={items} />
                </CardContent>
              </Card>
              <section className="min-w-0 space-y-3" aria-labelledby="content-title">
                <div className="flex items-center justify-between gap-2">
                  <h2 id="content-title" className="text-lg font-semibold">Contenu du cours ({items.length})</h2>
                  <Button variant="outline" size="sm" onClick={() => void reloadContent()}>
                    <RefreshCwIcon aria-hidden /> Actualiser
                  </Button>
                </div>
                <ContentList items={items} viewed={viewed} />
              </section>
            </TabsContent>
            <TabsContent value="unlock" className="pt-3">
              <Card>
                <CardHeader>
                  <CardTitle>Programme de déblocage</CardTitle>
                </CardHeader>
                <CardContent>
                  <ScheduleEditor courseId={course.id} items={items} />
                </CardContent>
              </Card>
            </TabsContent>
            <TabsContent value="settings" className="pt-3">
              <Card>
                <CardContent className="text-muted-foreground text-sm">
                  Les paramètres avancés du cours arrivent bientôt. Pour modifier le titre, la description, la visibilité ou la couverture, utilisez{" "}
                  <Link className="text-primary underline" to={`/admin/courses/edit/${course.id}`}>
                    la page d'édition
                  </Link>
                  .
                </CardContent>
              </Card>
            </TabsContent>
          </Tabs>
        </PageContainer>
      )}
    </CourseStateView>
  );
}
