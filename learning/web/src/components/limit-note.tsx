/** The bound a text is over, said while typing (the database would refuse it); nothing otherwise. */
export function LimitNote({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="text-destructive text-sm" role="alert">
      {message}
    </p>
  );
}
