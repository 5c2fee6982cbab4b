import { supabase } from "@/lib/supabase";
import { textLimitError } from "@/lib/text-limits";
import { isStudentRole } from "@/types/db";

export async function updateFullName(userId: string, fullName: string): Promise<void> {
  const { error } = await supabase().from("profiles").update({ full_name: fullName.trim() || null }).eq("id", userId);
  if (error) throw textLimitError(error) ?? error;
}

export async function updateLearnerDetails(userId: string, values: { country: string; whatsapp_number: string; student_role: string }): Promise<void> {
  const { error } = await supabase()
    .from("profiles")
    .update({ country: values.country.trim() || null, whatsapp_number: values.whatsapp_number.trim() || null, student_role: isStudentRole(values.student_role) ? values.student_role : undefined })
    .eq("id", userId);
  if (error) throw textLimitError(error) ?? error;
}

export async function updateAuthFullName(fullName: string): Promise<void> {
  const { error } = await supabase().auth.updateUser({ data: { full_name: fullName.trim() } });
  if (error) throw error;
}
