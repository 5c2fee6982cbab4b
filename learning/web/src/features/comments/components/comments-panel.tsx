import * as React from "react";
import { Link } from "react-router-dom";
import { toast } from "sonner";
import { CornerDownRightIcon, Loader2Icon, MessageSquareIcon, ReplyIcon, SendIcon, Trash2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { Textarea } from "@/components/ui/textarea";
import { useAuth } from "@/features/auth";
import type { Author } from "@/features/comments/api/comments";
import { useComments, useDeleteEntry, usePostComment, usePostReply } from "@/features/comments/hooks/use-comments";
import { formatDateTimeFr } from "@/lib/format";
import { useErrorToast } from "@/lib/use-error-toast";
import { tooLong } from "@/lib/text-limits";
import { LimitNote } from "@/components/limit-note";

export function CommentsPanel({ contentId }: { contentId: string }) {
  const { user, isAdmin } = useAuth();
  const query = useComments(contentId);
  const comments = query.data ?? null;
  const failed = query.isError;
  const post = usePostComment(user?.id ?? "", contentId);
  const posting = post.isPending;
  const removeEntry = useDeleteEntry(contentId);
  const [text, setText] = React.useState("");
  const [replyTo, setReplyTo] = React.useState<string | null>(null);
  useErrorToast(query.error, "Impossible de charger les commentaires.");

  const overLimit = tooLong("comment", text);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!user || !text.trim() || overLimit || posting) return;
    try {
      await post.mutateAsync(text);
      setText("");
      toast.success("Commentaire publié");
    } catch (err) {
      toast.error(err instanceof Error ? err.message : "Impossible de publier le commentaire.");
    }
  };

  const canDelete = (authorId: string) => !!user && (isAdmin || user.id === authorId);

  const remove = async (kind: "comment" | "reply", id: string, authorId: string) => {
    if (!canDelete(authorId)) {
      toast.error(kind === "comment" ? "Vous n'avez pas le droit de supprimer ce commentaire." : "Vous n'avez pas le droit de supprimer cette réponse.");
      return;
    }
    try {
      await removeEntry.mutateAsync({ kind, id });
      toast.success(kind === "comment" ? "Commentaire supprimé" : "Réponse supprimée");
    } catch (err) {
      toast.error(err instanceof Error ? err.message : kind === "comment" ? "Impossible de supprimer le commentaire." : "Impossible de supprimer la réponse.");
    }
  };

  const count = comments?.reduce((n, c) => n + 1 + c.replies.length, 0) ?? 0;

  return (
    <section className="bg-card rounded-xl border" aria-labelledby="comments-title">
      <div className="flex items-center gap-2 border-b px-4 py-3">
        <MessageSquareIcon className="text-primary size-5" aria-hidden />
        <h2 id="comments-title" className="font-semibold">
          Commentaires {comments && comments.length > 0 ? <span className="text-muted-foreground font-normal">({count})</span> : null}
        </h2>
      </div>
      <div className="max-h-[400px] space-y-4 overflow-y-auto px-4 py-4" data-testid="comments-list">
        {comments === null && !failed && (
          <p className="text-muted-foreground flex items-center gap-2 text-sm">
            <Loader2Icon className="size-4 animate-spin" aria-hidden /> Chargement des commentaires...
          </p>
        )}
        {failed && (
          <div className="text-sm">
            <p className="text-destructive">Impossible de charger les commentaires.</p>
            <Button variant="link" className="h-auto p-0" onClick={() => void query.refetch()}>
              Réessayer
            </Button>
          </div>
        )}
        {comments?.length === 0 && <p className="text-muted-foreground text-sm">Aucun commentaire pour le moment. Soyez le premier à réagir !</p>}
        {comments?.map((c) => (
          <article key={c.id} className="space-y-2" data-testid="comment">
            <Entry author={c.author} date={c.created_at} text={c.content} onDelete={canDelete(c.user_id) ? () => void remove("comment", c.id, c.user_id) : undefined} deleteLabel="Supprimer le commentaire">
              {user && (
                <Button variant="ghost" size="sm" className="text-muted-foreground h-7 px-2" onClick={() => setReplyTo(replyTo === c.id ? null : c.id)}>
                  <ReplyIcon aria-hidden /> Répondre
                </Button>
              )}
            </Entry>
            {c.replies.length > 0 && (
              <div className="ml-4 space-y-2 border-l-2 pl-4 sm:ml-8">
                {c.replies.map((r) => (
                  <div key={r.id} data-testid="reply">
                    <Entry author={r.author} date={r.created_at} text={r.content} onDelete={canDelete(r.user_id) ? () => void remove("reply", r.id, r.user_id) : undefined} deleteLabel="Supprimer la réponse" />
                  </div>
                ))}
              </div>
            )}
            {replyTo === c.id && user && <ReplyForm contentId={contentId} commentId={c.id} userId={user.id} onDone={() => setReplyTo(null)} />}
          </article>
        ))}
      </div>
      <div className="border-t px-4 py-4">
        {user ? (
          <form onSubmit={submit} className="flex flex-col gap-2">
            <label htmlFor={`comment-${contentId}`} className="sr-only">
              Votre commentaire
            </label>
            <Textarea
              id={`comment-${contentId}`}
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder="Écrire un commentaire..."
              rows={2}
              aria-invalid={!!overLimit}
              aria-describedby={overLimit ? `comment-${contentId}-error` : undefined}
            />
            <LimitNote id={`comment-${contentId}-error`} message={overLimit} />
            <Button type="submit" size="sm" className="self-end" disabled={!text.trim() || !!overLimit || posting}>
              {posting ? <Loader2Icon className="animate-spin" aria-hidden /> : <SendIcon aria-hidden />} Publier
            </Button>
          </form>
        ) : (
          <p className="text-muted-foreground text-sm">
            <Link to="/connexion" className="text-primary font-medium hover:underline">
              Connectez-vous
            </Link>{" "}
            pour commenter.
          </p>
        )}
      </div>
    </section>
  );
}

function Entry({ author, date, text, onDelete, deleteLabel, children }: { author: Author | null; date: string; text: string; onDelete?: () => void; deleteLabel: string; children?: React.ReactNode }) {
  const name = author?.full_name || "Utilisateur";
  return (
    <div className="flex gap-3">
      <span className="bg-accent text-primary flex size-8 shrink-0 items-center justify-center rounded-full text-xs font-semibold uppercase" aria-hidden>
        {name.slice(0, 1)}
      </span>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <span className="text-sm font-medium">{name}</span>
          {author?.role === "admin" && <Badge className="h-5">Admin</Badge>}
          <time className="text-muted-foreground text-xs" dateTime={date}>
            {formatDateTimeFr(date)}
          </time>
        </div>
        <p className="mt-1 text-sm break-words whitespace-pre-line">{text}</p>
        <div className="mt-1 flex items-center gap-1">
          {children}
          {onDelete && (
            <Button variant="ghost" size="sm" className="text-muted-foreground hover:text-destructive h-7 px-2" onClick={onDelete} aria-label={deleteLabel}>
              <Trash2Icon aria-hidden />
            </Button>
          )}
        </div>
      </div>
    </div>
  );
}

function ReplyForm({ contentId, commentId, userId, onDone }: { contentId: string; commentId: string; userId: string; onDone: () => void }) {
  const [text, setText] = React.useState("");
  const reply = usePostReply(userId, contentId, commentId);
  const busy = reply.isPending;
  const overLimit = tooLong("reply", text);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!text.trim() || overLimit || busy) return;
    try {
      await reply.mutateAsync(text);
      toast.success("Réponse publiée");
      onDone();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : "Impossible de publier la réponse.");
    }
  };
  return (
    <form onSubmit={submit} className="ml-4 flex items-start gap-2 sm:ml-8">
      <CornerDownRightIcon className="text-muted-foreground mt-2 size-4 shrink-0" aria-hidden />
      <label htmlFor={`reply-${commentId}`} className="sr-only">
        Votre réponse
      </label>
      <div className="flex min-w-0 flex-1 flex-col gap-1">
        <Textarea
          id={`reply-${commentId}`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Écrire une réponse..."
          rows={1}
          className="min-h-9"
          autoFocus
          aria-invalid={!!overLimit}
          aria-describedby={overLimit ? `reply-${commentId}-error` : undefined}
        />
        <LimitNote id={`reply-${commentId}-error`} message={overLimit} />
      </div>
      <Button type="submit" size="sm" disabled={!text.trim() || !!overLimit || busy}>
        Répondre
      </Button>
    </form>
  );
}
