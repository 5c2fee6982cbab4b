import * as React from "react";
import { toast } from "sonner";
import { Loader2Icon, SendIcon, Trash2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";
import type { Peer } from "@/features/messages/api/messages";
import { useConversation, useDeleteMessage, useSendMessage } from "@/features/messages/hooks/use-conversation";
import { formatDateTimeFr } from "@/lib/format";
import { useErrorToast } from "@/lib/use-error-toast";
import { cn } from "@/lib/utils";
import { tooLong } from "@/lib/text-limits";
import { LimitNote } from "@/components/limit-note";
import type { PrivateMessage } from "@/types/db";

/** One conversation: 400 px message list, read marking on open, send and delete. */
export function Conversation({ userId, peer, viewerIsAdmin }: { userId: string; peer: Peer; viewerIsAdmin: boolean }) {
  const query = useConversation(userId, peer.id);
  const messages = query.data ?? null;
  const failed = query.isError;
  const sendMutation = useSendMessage(userId, peer.id);
  const deleteMutation = useDeleteMessage(userId, peer.id);
  const sending = sendMutation.isPending;
  const [text, setText] = React.useState("");
  const listRef = React.useRef<HTMLDivElement>(null);

  useErrorToast(query.error, "Impossible de charger les messages.");

  React.useEffect(() => {
    const el = listRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages]);

  const overLimit = tooLong("message", text);

  const send = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!text.trim() || overLimit || sending) return;
    try {
      await sendMutation.mutateAsync(text);
      setText("");
    } catch (err) {
      // The API's message: the bound's French one when the database refused the length.
      toast.error(err instanceof Error ? err.message : "Impossible d'envoyer le message.");
    }
  };

  const remove = async (m: PrivateMessage) => {
    // Messages sent by admins cannot be deleted by a non-admin.
    if (!viewerIsAdmin && m.sender_id !== userId) {
      toast.error("Vous ne pouvez pas supprimer les messages des administrateurs");
      return;
    }
    try {
      await deleteMutation.mutateAsync(m.id);
      toast.success("Message supprimé avec succès");
    } catch {
      toast.error("Impossible de supprimer le message");
    }
  };

  return (
    <div className="bg-card flex min-w-0 flex-col rounded-xl border">
      <div className="flex items-center gap-3 border-b px-4 py-3">
        <span className="bg-primary text-primary-foreground flex size-9 items-center justify-center rounded-full text-sm font-semibold uppercase" aria-hidden>
          {(peer.full_name || "?").slice(0, 1)}
        </span>
        <div className="min-w-0">
          <p className="truncate font-semibold">{peer.full_name || peer.email || "Utilisateur"}</p>
          <p className="text-muted-foreground text-xs">{viewerIsAdmin ? peer.email : "Administrateur"}</p>
        </div>
      </div>
      <div ref={listRef} className="h-[400px] space-y-3 overflow-y-auto px-4 py-4" data-testid="message-list" aria-live="polite">
        {messages === null && !failed && (
          <p className="text-muted-foreground flex items-center gap-2 text-sm">
            <Loader2Icon className="size-4 animate-spin" aria-hidden /> Chargement des messages...
          </p>
        )}
        {failed && <p className="text-destructive text-sm">Impossible de charger les messages.</p>}
        {messages?.length === 0 && <p className="text-muted-foreground py-16 text-center text-sm">Aucun message pour le moment. Écrivez votre premier message ci-dessous.</p>}
        {messages?.map((m) => {
          const mine = m.sender_id === userId;
          const deletable = viewerIsAdmin || mine;
          return (
            <div key={m.id} className={cn("group flex items-end gap-1", mine ? "justify-end" : "justify-start")} data-testid="message">
              {mine && deletable && <DeleteButton onClick={() => void remove(m)} />}
              <div className={cn("max-w-[80%] rounded-2xl px-3.5 py-2 text-sm shadow-xs", mine ? "bg-primary text-primary-foreground rounded-br-sm" : "bg-muted rounded-bl-sm")}>
                <p className="break-words whitespace-pre-line">{m.content}</p>
                <p className={cn("mt-1 text-[11px]", mine ? "text-primary-foreground/90" : "text-muted-foreground")}>{formatDateTimeFr(m.created_at)}</p>
              </div>
              {!mine && deletable && <DeleteButton onClick={() => void remove(m)} />}
            </div>
          );
        })}
      </div>
      <form onSubmit={send} className="flex flex-col gap-1 border-t p-3">
        <div className="flex items-end gap-2">
          <label htmlFor="message-input" className="sr-only">
            Votre message
          </label>
          <Textarea
            id="message-input"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="Écrire un message..."
            rows={1}
            className="max-h-32 min-h-10"
            aria-invalid={!!overLimit}
            aria-describedby={overLimit ? "message-input-error" : undefined}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                void send(e);
              }
            }}
          />
          <Button type="submit" size="icon" className="size-10 shrink-0" disabled={!text.trim() || !!overLimit || sending} aria-label="Envoyer">
            {sending ? <Loader2Icon className="animate-spin" aria-hidden /> : <SendIcon aria-hidden />}
          </Button>
        </div>
        <LimitNote id="message-input-error" message={overLimit} />
      </form>
    </div>
  );
}

function DeleteButton({ onClick }: { onClick: () => void }) {
  return (
    <Button variant="ghost" size="icon" className="text-muted-foreground hover:text-destructive size-7 opacity-60 group-hover:opacity-100 focus-visible:opacity-100" onClick={onClick} aria-label="Supprimer le message">
      <Trash2Icon className="size-3.5" aria-hidden />
    </Button>
  );
}
