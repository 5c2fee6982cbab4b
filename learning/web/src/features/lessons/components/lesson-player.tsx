import * as React from "react";
import { useQuery } from "@tanstack/react-query";
import { toast } from "sonner";
import { DownloadIcon, ImageOffIcon, Loader2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { contentDownloadUrl, contentImageUrl } from "@/features/courses";
import { toEmbedUrl } from "@/features/lessons/lib/embed";
import { fileTypeIcon, fileTypeLabel } from "@/features/lessons/lib/file-type";
import { formatFileSize } from "@/lib/format";
import { downloadName, saveFileWithToast } from "@/lib/download";
import type { CourseContent } from "@/types/db";

/** Video (16:9 embed), image, or a download card for documents and other files. */
export function LessonPlayer({ content }: { content: CourseContent }) {
  if (content.file_type === "video") return <VideoFrame content={content} />;
  if (content.file_type === "image" && content.file_path) return <LessonImage content={content} />;
  return <FileCard content={content} />;
}

/** Whether the player itself offers the download (its file card): a page adds no second button then. */
export function playerOffersDownload(content: Pick<CourseContent, "file_type" | "file_path">): boolean {
  return content.file_type !== "video" && !(content.file_type === "image" && content.file_path);
}

function VideoFrame({ content }: { content: CourseContent }) {
  const src = toEmbedUrl(content.video_embed_url);
  if (!src) {
    return <div className="bg-muted text-muted-foreground flex aspect-video w-full items-center justify-center rounded-xl text-sm">Vidéo indisponible</div>;
  }
  return (
    <div className="relative aspect-video w-full overflow-hidden rounded-xl bg-black shadow-md">
      <iframe
        src={src}
        title={content.title}
        className="absolute inset-0 size-full border-0"
        loading="lazy"
        // The video site's player needs to know the page it plays in (it refuses to play without a referrer).
        referrerPolicy="strict-origin-when-cross-origin"
        allow="accelerometer; gyroscope; encrypted-media; picture-in-picture; fullscreen"
        allowFullScreen
      />
    </div>
  );
}

function LessonImage({ content }: { content: CourseContent }) {
  const filePath = content.file_path!;
  // A signed URL, read again after a while (it is valid for an hour).
  const query = useQuery({ queryKey: ["content-image", filePath], queryFn: () => contentImageUrl(filePath), staleTime: 10 * 60_000 });
  const url = query.isError ? null : query.data;
  React.useEffect(() => {
    if (url === null) toast.error("Impossible de charger l'image");
  }, [url]);
  if (url === undefined) return <Skeleton className="aspect-video w-full rounded-xl" />;
  if (!url)
    return (
      <div className="bg-muted text-muted-foreground flex aspect-video w-full flex-col items-center justify-center gap-2 rounded-xl text-sm">
        <ImageOffIcon className="size-8" aria-hidden /> Impossible de charger l'image
      </div>
    );
  return (
    <div className="bg-muted flex w-full justify-center overflow-hidden rounded-xl">
      <img src={url} alt={content.title} className="max-h-[70vh] w-auto object-contain" onError={() => toast.error("Impossible de charger l'image")} />
    </div>
  );
}

export function useContentDownload() {
  const [busy, setBusy] = React.useState(false);
  const download = async (content: Pick<CourseContent, "id" | "file_path" | "title">) => {
    if (!content.file_path) {
      toast.error("Ce contenu ne peut pas être téléchargé", { description: "Aucun fichier associé à ce contenu" });
      return;
    }
    setBusy(true);
    try {
      const url = async () => {
        const signed = await contentDownloadUrl(content.id);
        if (!signed.url) throw new Error(signed.error);
        return signed.url;
      };
      await saveFileWithToast(url, downloadName(content.title, content.file_path), "Impossible de télécharger le contenu.");
    } finally {
      setBusy(false);
    }
  };
  return { busy, download };
}

function FileCard({ content }: { content: CourseContent }) {
  const Icon = fileTypeIcon(content.file_type);
  const { busy, download } = useContentDownload();
  return (
    <div className="bg-muted/50 flex flex-col items-center gap-4 rounded-xl border px-6 py-12 text-center">
      <span className="bg-background text-primary flex size-16 items-center justify-center rounded-2xl border">
        <Icon className="size-8" aria-hidden />
      </span>
      <div>
        <p className="font-semibold">{content.title}</p>
        <p className="text-muted-foreground text-sm">{[fileTypeLabel(content.file_type), formatFileSize(content.file_size)].filter(Boolean).join(" · ")}</p>
      </div>
      <Button onClick={() => void download(content)} disabled={busy}>
        {busy ? <Loader2Icon className="animate-spin" aria-hidden /> : <DownloadIcon aria-hidden />} Télécharger
      </Button>
    </div>
  );
}
