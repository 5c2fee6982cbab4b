import { useParams } from "react-router-dom";
import { RefreshCwIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { PageContainer } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth";
import { AdminGuard, CourseForm, ContentForm, ContentList, BackButton, CourseStateView, useCourseContent } from "@/features/admin";
import { useDocumentTitle } from "@/lib/use-document-title";

/** /admin/courses/edit/{id} (legacy): tabs details and content, back and refresh buttons. */
export default function AdminCourseEditRoute() {
  useDocumentTitle("Modifier le cours");
  return (
    <AdminGuard>
      <AdminCourseEdit />
    </AdminGuard>
  );
}

function AdminCourseEdit() {
  const { id } = useParams();
  const { user } = useAuth();
  const { state, items, viewed, reload } = useCourseContent(id, user?.id ?? null);
  return (
    <CourseStateView state={state}>
      {(course) => (
        <PageContainer className="space-y-6">
          <div className="flex items-center justify-between gap-2">
            <BackButton />
            <Button variant="outline" size="sm" onClick={() => void reload()}>
              <RefreshCwIcon aria-hidden /> Actualiser
            </Button>
          </div>
          <h1 className="text-2xl font-bold sm:text-3xl">Modifier : {course.title}</h1>
          <Tabs defaultValue="details">
            <TabsList>
              <TabsTrigger value="details">Détails</TabsTrigger>
              <TabsTrigger value="content">Contenu</TabsTrigger>
            </TabsList>
            <TabsContent value="details" className="pt-3">
              <Card>
                <CardContent>
                  <CourseForm key={`${course.id}:${course.title}:${course.cover_url}`} course={course} idPrefix="edit-course" />
                </CardContent>
              </Card>
            </TabsContent>
            <TabsContent value="content" className="grid grid-cols-1 gap-6 pt-3 lg:grid-cols-[minmax(0,420px)_minmax(0,1fr)]">
              <Card className="h-fit">
                <CardContent>
                  <ContentForm courseId={course.id} existing={items} />
                </CardContent>
              </Card>
              <ContentList items={items} viewed={viewed} />
            </TabsContent>
          </Tabs>
        </PageContainer>
      )}
    </CourseStateView>
  );
}
